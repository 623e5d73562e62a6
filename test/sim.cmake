# Tests of the hypervisor simulator (sim/).  They link the simulator's
# objects (the lock code built against the sim backend), not pvspin_static,
# and they switch coroutines with ucontext, which the sanitizers do not
# follow: no "sanitize" label.
if(TARGET pvspin_sim_core)
  add_executable(test_sim test_sim.c $<TARGET_OBJECTS:pvspin_sim_core>)
  target_link_libraries(test_sim PRIVATE pvspin_sim_core PkgConfig::CMOCKA)
  add_test(NAME test_sim COMMAND test_sim)

  # The command line: bad input is a usage error naming the problem.
  add_test(NAME sim_cli_bad_key COMMAND pvspin-sim --preset smoke --set bogus=1)
  set_tests_properties(sim_cli_bad_key PROPERTIES
    PASS_REGULAR_EXPRESSION "unknown key 'bogus'. valid keys: vms")
  add_test(NAME sim_cli_bad_value COMMAND pvspin-sim --preset smoke --set lock=mutex)
  set_tests_properties(sim_cli_bad_value PROPERTIES
    PASS_REGULAR_EXPRESSION "^pvspin sim: lock=mutex: not a lock kind. valid kinds: qspinlock")
  # ebizzy-mm's own keys given to another workload: refused, exit 2 (they
  # were taken, ignored, and recorded in the report as if they counted)
  add_test(NAME sim_cli_key_other_workload COMMAND sh -c
    "\"$0\" --preset smoke --set threads=3 2>&1 >/dev/null; echo \"exit=$?\"" $<TARGET_FILE:pvspin-sim>)
  set_tests_properties(sim_cli_key_other_workload PROPERTIES PASS_REGULAR_EXPRESSION
    "^pvspin sim: threads is a key of workload ebizzy-mm. workload messaging does not read it\nexit=2\n$")
  # The text summary shows the waits' tail (p50 and p99 alone were equal
  # where a few waits took milliseconds, and a new user took it for a bug)
  add_test(NAME sim_cli_wait_tail COMMAND pvspin-sim --preset smoke)
  set_tests_properties(sim_cli_wait_tail PROPERTIES PASS_REGULAR_EXPRESSION
    "wait p50 [0-9]+ ns p99 [0-9]+ ns p999 [0-9]+ ns max [0-9]+ ns, jain")
  # options but no scenario: say what is missing (not only the usage)
  add_test(NAME sim_cli_no_scenario COMMAND pvspin-sim --seed 3)
  set_tests_properties(sim_cli_no_scenario PROPERTIES
    PASS_REGULAR_EXPRESSION "no scenario given: give --preset NAME")
  # ... also with no argument at all (it printed only the whole usage):
  # the problem, then the hint to --help every subcommand gives, exit 2
  add_test(NAME sim_cli_no_arguments COMMAND sh -c "\"$0\" 2>&1 >/dev/null; echo \"exit=$?\""
    $<TARGET_FILE:pvspin-sim>)
  set_tests_properties(sim_cli_no_arguments PROPERTIES PASS_REGULAR_EXPRESSION
    "^pvspin sim: no scenario given: give --preset NAME \\(see --list\\), --set KEY=VALUE or a FILE\n\\(pvspin sim --help lists the options\\)\nexit=2\n$")
  # SIGINT / SIGTERM: a run stops, reports what it has ("stop":
  # "interrupted"; --seeds: the seeds that ran) and ends by the signal,
  # leaving no worker behind
  add_test(NAME sim_cli_interrupted COMMAND sh -c
    "d=$(mktemp -d) && v=999 && \
     timeout --preserve-status -s INT 1 \"$0\" --preset smoke --set seconds=1000 --json $d/a.json 2>/dev/null; a=$? && \
     timeout --preserve-status -s TERM 1 \"$0\" --preset smoke --set seconds=$v.5 --seeds 3 --json $d/b.json 2>/dev/null; b=$? && \
     sleep 0.5 && left=$(pgrep -f \"seconds=$v.5\" | wc -l) && \
     echo \"exit=$a/$b left=$left\" && grep -o '\"stop\": *\"interrupted\"' $d/a.json $d/b.json | wc -l && rm -r $d"
    $<TARGET_FILE:pvspin-sim>)
  set_tests_properties(sim_cli_interrupted PROPERTIES TIMEOUT 30
    PASS_REGULAR_EXPRESSION "exit=130/143 left=0\n[3-9]")
  # --fuzz cut short by a signal: the runs done, no SUCCESS verdict
  add_test(NAME sim_cli_fuzz_interrupted COMMAND sh -c
    "timeout --preserve-status -s INT 1 \"$0\" --fuzz 1000000; echo \"exit=$?\""
    $<TARGET_FILE:pvspin-sim>)
  set_tests_properties(sim_cli_fuzz_interrupted PROPERTIES TIMEOUT 30
    PASS_REGULAR_EXPRESSION "runs \\(interrupted\\), 0 broken \\(seed [0-9]+\\): INTERRUPTED, no failure seen\n.*exit=130"
    FAIL_REGULAR_EXPRESSION "SUCCESS")
  # --seeds: SIGTERM to the parent alone, at moments from before its
  # handlers to the workers' runs, over and over: it passes the signal on,
  # collects what the workers have and ends by it (143), every time.  A
  # parent that slept through the signal (a check, then a blocking wait)
  # would wait for runs of 998 s: the watchdog kills it (137).  SIGTERM,
  # not SIGINT: a background job of sh ignores SIGINT until the handlers
  # are installed.
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sim_seeds_interrupt.sh
"p=\"$1\"; d=$(mktemp -d); fail=0
for delay in 0 0.005 0.01 0.015 0.02 0.03 0.05 0.1 0.2 0.01 0.02 0.04; do
  \"$p\" --preset smoke --set seconds=998.5 --seeds 3 --json $d/r.json 2>$d/err &
  pid=$!
  sleep $delay; kill -TERM $pid
  i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
  kill -KILL $pid 2>/dev/null; wait $pid; r=$?
  [ $r -eq 143 ] || { echo \"delay $delay: exit $r: $(cat $d/err)\"; fail=1; }
done
sleep 0.5
left=$(pgrep -f 'seconds=998[.]5' | wc -l)
[ $left -eq 0 ] || { echo \"$left workers left\"; fail=1; }
rm -r $d
[ $fail -eq 0 ] && echo seeds-interrupt-ok
")
  add_test(NAME sim_cli_seeds_interrupt
    COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/sim_seeds_interrupt.sh $<TARGET_FILE:pvspin-sim>)
  set_tests_properties(sim_cli_seeds_interrupt PROPERTIES TIMEOUT 120
    PASS_REGULAR_EXPRESSION "seeds-interrupt-ok")
  # SIGTERM while the scenario is still being read, from a pipe that never
  # ends: fast (yes, which kept it reading up to 1 GiB, the signal
  # unheeded), slow (a line every 50 ms: the blocked read ended with
  # EINTR, said as "cannot read scenario file '<stdin>'", then "the
  # results cover the simulated time until then" of a run that never
  # was; or, the signal between two reads, read on) or stalled (no byte:
  # the same); INI, blanks before the first character and JSON, on stdin
  # and as a named FIFO (.ini, .json).  Each must end within 3 s of the
  # signal, by it (143), with one line on stderr.
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sim_load_interrupt.sh
"p=\"$1\"; d=$(mktemp -d) || exit 1; fail=0
w='pvspin sim: interrupted by SIGTERM while reading the scenario: nothing was simulated'
feed() { case $1 in
  yes) yes '# comment';; slow) while echo '# comment'; do sleep 0.05; done;;
  stall) exec sleep 30;; blank) yes '';;
  jyes) echo '{'; yes ' ';; jslow) echo '{'; while echo ' '; do sleep 0.05; done;; esac; }
for c in '- yes' '- slow' '- stall' '- blank' '- jyes' '- jslow' \\
         'f.ini slow' 'f.ini stall' 'f.json jslow'; do
  set -- $c; a=-; in=\"$d/f\"; rm -f \"$d/f\" \"$d/$1\"; mkfifo \"$d/f\" || exit 1
  [ $1 = - ] || { ln -s f \"$d/$1\"; a=\"$d/$1\"; in=/dev/null; }
  feed $2 >\"$d/f\" 2>/dev/null & feeder=$!
  \"$p\" sim \"$a\" <\"$in\" >/dev/null 2>\"$d/err\" & sim=$!
  sleep 0.5; kill -TERM $sim
  i=0; while kill -0 $sim 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done
  kill -KILL $sim 2>/dev/null; wait $sim; r=$?
  kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
  e=$(grep -v '^==[0-9]*==' \"$d/err\")
  [ $i -lt 30 ] && [ \"$r:$e\" = \"143:$w\" ] ||
    { echo \"FAIL $c: exit $r after $i x 0.1 s: '$e'\"; fail=1; }
done
rm -r \"$d\"; [ $fail -eq 0 ] && echo load-interrupt-ok
")
  add_test(NAME sim_cli_load_interrupt
    COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/sim_load_interrupt.sh $<TARGET_FILE:pvspin>)
  set_tests_properties(sim_cli_load_interrupt PROPERTIES TIMEOUT 60
    PASS_REGULAR_EXPRESSION "load-interrupt-ok")
  add_test(NAME sim_cli_list COMMAND pvspin sim --list)
  set_tests_properties(sim_cli_list PROPERTIES
    PASS_REGULAR_EXPRESSION "kcbench-no-ple.*ebizzy-boost.*spawn-dedicated")
  # The twin's line names every lock kind sim/twin.sh compares (its KINDS
  # default), spinpark too.
  add_test(NAME sim_cli_list_twin_kinds COMMAND sh -c
    "line=$(\"$0\" sim --list | grep '^ *twin ') || exit 1; \
     kinds=$(sed -n 's/^KINDS=.*:-\\([a-z,]*\\)}$/\\1/p' \"$1\"); [ -n \"$kinds\" ] || exit 1; \
     [ \"$(printf '%s' \"$line\" | sed 's/.*compare lock=\\([a-z|]*\\).*/\\1/')\" = \"$(printf '%s' \"$kinds\" | tr , '|')\" ] && echo twin-kinds-ok"
    $<TARGET_FILE:pvspin> ${PROJECT_SOURCE_DIR}/sim/twin.sh)
  set_tests_properties(sim_cli_list_twin_kinds PROPERTIES PASS_REGULAR_EXPRESSION "twin-kinds-ok")
  # The summary's first line names the locks the VMs ran (vmN.lock
  # overrides the global lock), not the global lock.
  add_test(NAME sim_cli_summary_per_vm_lock COMMAND pvspin-sim --preset smoke
    --set seconds=0.001 --set vms=3 --set vm0.lock=tas --set vm2.lock=tas)
  set_tests_properties(sim_cli_summary_per_vm_lock PROPERTIES PASS_REGULAR_EXPRESSION
    "preset smoke, locks \\(vm0 tas, vm1 qspinlock, vm2 tas\\), 3 VM")
  add_test(NAME sim_cli_summary_vm0_lock COMMAND pvspin-sim --preset smoke
    --set seconds=0.001 --set vm0.lock=ticket)
  set_tests_properties(sim_cli_summary_vm0_lock PROPERTIES PASS_REGULAR_EXPRESSION
    "preset smoke, lock ticket, 1 VM")
  # counts of one are singular in both summaries ("1 VM x 1 vCPU on 1 pCPU";
  # it said "1 VM(s) x 1 vCPUs on 1 pCPUs"), others plural
  add_test(NAME sim_cli_summary_counts COMMAND sh -c
    "\"$0\" --preset smoke --set seconds=0.001 --set vcpus=1 --set pcpus=1 | sed -n 1p
     \"$0\" --preset smoke --set seconds=0.001 --set vms=2 --set vcpus=1 --set pcpus=2 --seeds 2 \
       | sed -n 1p" $<TARGET_FILE:pvspin-sim>)
  set_tests_properties(sim_cli_summary_counts PROPERTIES PASS_REGULAR_EXPRESSION
    "^pvspin sim: preset smoke, lock qspinlock, 1 VM x 1 vCPU on 1 pCPU, [^\n]*\npvspin sim: preset smoke, lock qspinlock, 2 VMs x 1 vCPU on 2 pCPUs, [^\n]*seeds")
  add_test(NAME sim_fuzz_short COMMAND pvspin-sim --fuzz 20 --seed 7)
  set_tests_properties(sim_fuzz_short PROPERTIES PASS_REGULAR_EXPRESSION "SUCCESS")
endif()

# One command line; the test passes when its output matches REGEX and the
# status is EXIT (2 usage, 1 the file/output failed).  REDIRECT picks the
# output: "2>&1 >/dev/null" stderr only, "2>&1" stdout and stderr.
# REGEX may not hold a ';': CMake would split the property there into
# several expressions, any one of which passes the test (so the exit
# status, matched after REGEX, would go unchecked); write '.' for it.
function(pvspin_sim_cli name redirect exit_code regex)
  string(FIND "${regex}" ";" semicolon)
  if(NOT semicolon EQUAL -1)
    message(FATAL_ERROR "test ${name}: its expected output holds a ';' (write '.'): ${regex}")
  endif()
  add_test(NAME ${name} COMMAND sh -c "\"$0\" \"$@\" ${redirect}; echo \"exit=$?\"" ${ARGN})
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}.*exit=${exit_code}")
endfunction()
# REGEX matched against stderr (the error message).
function(pvspin_sim_cli_expect name exit_code regex)
  pvspin_sim_cli(${name} "2>&1 >/dev/null" ${exit_code} "${regex}" ${ARGN})
endfunction()
# REGEX matched against stdout and stderr (e.g. the summary).
function(pvspin_sim_cli_output name exit_code regex)
  pvspin_sim_cli(${name} "2>&1" ${exit_code} "${regex}" ${ARGN})
endfunction()

if(TARGET pvspin_sim_core AND TARGET pvspin)
  set(P $<TARGET_FILE:pvspin>)
  # an empty value is quoted, as an option's (tool_value_quote(); it said
  # "vms=: not ..."), on the command line and in a scenario file
  pvspin_sim_cli_expect(sim_cli_set_empty_value 2
    "^pvspin sim: vms='': not an integer from 1 to 64\n"
    ${P} sim --set vms=)
  add_test(NAME sim_cli_ini_empty_value COMMAND sh -c
    "printf 'lock =\\n' | \"$0\" sim - 2>&1; echo \"exit=$?\"" ${P})
  set_tests_properties(sim_cli_ini_empty_value PROPERTIES PASS_REGULAR_EXPRESSION
    "^pvspin sim: lock='': not a lock kind. valid kinds: [^\n]*\npvspin sim: <stdin>:1: [^\n]*\nexit=2")
  pvspin_sim_cli_expect(sim_cli_slice_zero 2
    "pvspin sim: slice_us=0.0001: not -1 .* from 1 to"
    ${P} sim --preset smoke --set slice_us=0.0001)
  # the lock tunables' keys take the library's ranges: the largest value
  # that PVSPIN_* takes is the one `pvspin sim` suggests instead (--set
  # KEY=VALUE), and that value runs, on the kind that reads it (it was
  # refused: "not an integer from 1 to 1073741824", exit 2); one past
  # it is refused, naming the range
  add_test(NAME sim_cli_tunable_full_range COMMAND sh -c
    "p=\"$0\"; t=$(mktemp) || exit 1; fail=0
     for kv in 'SPIN_THRESHOLD spin_threshold 1 pvqspinlock' 'PENDING_LOOPS pending_loops 1 qspinlock' \\
               'TAS_BACKOFF_MAX tas_backoff_max 0 tas'; do
       set -- $kv; v=PVSPIN_$1; k=$2; min=$3; m=4294967295
       o=$(env $v=$m \"$p\" sim --preset smoke --set lock=$4 --set $k=$m --json - 2>\"$t\"); r=$?
       e=$(grep -v '^==[0-9]*==' \"$t\")
       w=\"pvspin sim: ignoring $v=$m: pvspin sim takes tunables only as configuration keys (--set $k=$m), never from the environment\"
       [ \"$r:$e\" = \"0:$w\" ] || { echo \"FAIL $k: exit $r: '$e'\"; fail=1; }
       echo \"$o\" | grep -q \"^ *\\\"$k\\\": $m,\\$\" || { echo \"FAIL $k: not in the config echo\"; fail=1; }
       e=$(\"$p\" sim --preset smoke --set $k=4294967296 2>&1 >/dev/null); r=$?
       [ \"$r:$e\" = \"2:pvspin sim: $k=4294967296: not an integer from $min to $m\" ] ||
         { echo \"FAIL $k: one past: exit $r: '$e'\"; fail=1; }
     done; rm -f \"$t\"; [ $fail -eq 0 ] && echo tunable-range-ok" ${P})
  set_tests_properties(sim_cli_tunable_full_range PROPERTIES PASS_REGULAR_EXPRESSION "tunable-range-ok")
  # numbers are plain decimal: no hex, no '+', no blanks (strtod/strtoll take them)
  pvspin_sim_cli_expect(sim_cli_hex_seconds 2 "pvspin sim: seconds=0x10: not a number from"
    ${P} sim --preset smoke --set seconds=0x10)
  pvspin_sim_cli_expect(sim_cli_plus_int 2 "pvspin sim: vms=\\+2: not an integer from 1 to 64"
    ${P} sim --preset smoke --set vms=+2)
  pvspin_sim_cli_expect(sim_cli_per_vm_key 2 "pvspin sim: vm0.lock=foo: not a lock kind"
    ${P} sim --set vm0.lock=foo)
  pvspin_sim_cli_expect(sim_cli_dir_scenario 1 "pvspin sim: cannot read scenario file .*Is a directory"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR})
  pvspin_sim_cli_expect(sim_cli_missing_ini 1 "pvspin sim: cannot open scenario file"
    ${P} sim /nonexistent/scenario.ini)
  pvspin_sim_cli_expect(sim_cli_missing_json 1 "pvspin sim: cannot open scenario file"
    ${P} sim /nonexistent/scenario.json)
  pvspin_sim_cli_expect(sim_cli_json_no_config 1 "no \"config\" object"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_noconfig.json)
  # a `pvspin bench --json` report (trimmed) is named as one, not as a
  # scenario with a bad value (it was "key 'locks' has an unusable value",
  # exit 2)
  pvspin_sim_cli_expect(sim_cli_bench_report 1
    "bench_report.json: a pvspin bench report .*not a scenario"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/bench_report.json)
  # a null (an object, a list) says so and what a key takes (it was
  # "key 'lock' has an unusable value": helper-56's finding)
  pvspin_sim_cli_expect(sim_cli_json_null_value 2
    "sim_null_value.json: key 'lock' is null. a key takes a string, a number or true/false"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_null_value.json)
  # an unknown section is a malformed file (exit 1, like a line that is not
  # INI), named with its line and the valid sections
  pvspin_sim_cli_expect(sim_cli_ini_unknown_section 1
    "sim_unknown_section.ini:3: unknown section \\[bogus\\]. valid sections: \\[scenario\\]"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_unknown_section.ini)
  # a preset in the file must not silently replace the command line's
  pvspin_sim_cli_expect(sim_cli_preset_file_vs_option 2
    "two presets given \\(--preset kcbench-no-ple, and 'smoke' in .*sim_preset_smoke.ini\\)"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_preset_smoke.ini --preset kcbench-no-ple)
  pvspin_sim_cli_expect(sim_cli_json_out_dir 1 "pvspin sim: --json: cannot write .*Is a directory"
    ${P} sim --preset smoke --json ${CMAKE_CURRENT_SOURCE_DIR})
  # an empty file name is bad usage (exit 2, naming the option), not an
  # unwritable file (it was exit 1, "cannot write ''"); for --fuzz too
  add_test(NAME sim_cli_json_empty_name COMMAND sh -c
    "\"$0\" sim --preset smoke --json '' 2>&1 >/dev/null; echo \"exit=$?\"
     \"$0\" sim --fuzz 1 --json '' 2>&1 >/dev/null; echo \"exit=$?\"" ${P})
  set_tests_properties(sim_cli_json_empty_name PROPERTIES PASS_REGULAR_EXPRESSION
    "^pvspin sim: --json: empty file name \\(expected a FILE, or - for standard output\\)\nexit=2\npvspin sim: --json: empty file name [^\n]*\nexit=2\n$")
  # --json FILE is checked before simulating: this run would deadlock (lost
  # kicks) and print a DEADLOCK report if it were simulated
  pvspin_sim_cli_expect(sim_cli_json_out_checked_first 1
    "pvspin sim: --json: cannot write '/nonexistent/dir/out.json': No such file or directory"
    ${P} sim --set lock=pvqspinlock --set workload=spawn --set cs_us=5 --set work=200
    --set spin_threshold=64 --set lose_kicks=1 --set seconds=0.05
    --json /nonexistent/dir/out.json)
  set_tests_properties(sim_cli_json_out_checked_first PROPERTIES FAIL_REGULAR_EXPRESSION "DEADLOCK")
  # and before the runs of --fuzz, whose summary line says "N runs"
  add_test(NAME sim_cli_fuzz_json_out_checked_first COMMAND sh -c
    "\"$0\" sim --fuzz 1 --json /nonexistent/dir/out.json 2>&1; echo \"exit=$?\"" ${P})
  set_tests_properties(sim_cli_fuzz_json_out_checked_first PROPERTIES
    PASS_REGULAR_EXPRESSION "--json: cannot write '/nonexistent/dir/out.json'.*exit=1"
    FAIL_REGULAR_EXPRESSION " runs, ")
  # host shapes that make no sense: nodes split pcpus evenly, dedicated
  # vCPUs need a pCPU each; the message names both keys and their values
  pvspin_sim_cli_expect(sim_cli_nodes_not_divisor 2
    "pcpus \\(4\\) must be a multiple of nodes \\(3\\).*valid nodes for pcpus=4: 1, 2, 4\n"
    ${P} sim --preset smoke --set nodes=3)
  pvspin_sim_cli_expect(sim_cli_nodes_over_pcpus 2 "nodes \\(8\\) must not exceed pcpus \\(4\\)"
    ${P} sim --preset smoke --set nodes=8)
  pvspin_sim_cli_expect(sim_cli_dedicated_over_pcpus 2
    "dedicated=1 needs vms x vcpus \\(8\\) <= pcpus \\(4\\)"
    ${P} sim --preset smoke --set vms=2 --set dedicated=1)
  pvspin_sim_cli_expect(sim_cli_list_extra 2 "--list takes no argument" ${P} sim --list extra)
  pvspin_sim_cli_expect(sim_cli_list_preset 2 "--list takes no other option"
    ${P} sim --list --preset smoke)
  pvspin_sim_cli_expect(sim_cli_fuzz_preset 2 "--fuzz draws its own configurations"
    ${P} sim --fuzz 2 --preset smoke)
  pvspin_sim_cli_expect(sim_cli_getopt_name 2 "^pvspin sim: unknown option .--bogus.\n\\(pvspin sim --help lists the options\\)" ${P} sim --bogus)

  # A preset is applied first, wherever it is given: `--set preset=NAME`
  # after other --set keys does not throw them away (the run stops at 2 ms,
  # not at smoke's 10 ms); two different presets are a usage error.
  pvspin_sim_cli_output(sim_cli_set_preset_first 0 "stop end at 0.002000 s"
    ${P} sim --preset smoke --set seconds=0.002 --set vms=2 --set preset=smoke)
  pvspin_sim_cli_output(sim_cli_set_preset_only 0 "preset smoke, lock qspinlock, 2 VM.*stop end at 0.002000 s"
    ${P} sim --set seconds=0.002 --set vms=2 --set preset=smoke)
  pvspin_sim_cli_expect(sim_cli_two_presets 2
    "two presets given \\(--preset smoke, --set preset=ebizzy-boost\\). give one"
    ${P} sim --preset smoke --set preset=ebizzy-boost)

  # Every accepted seed (0..2^64-1) survives the JSON round trip: seeds above
  # INT64_MAX, which a JSON integer (jansson: int64) cannot hold, are written
  # as a string and read back; the largest written straight into a scenario
  # as an integer gets a hint.
  add_test(NAME sim_seed_round_trip COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_seed_round_trip.sh ${P} ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(sim_seed_round_trip PROPERTIES PASS_REGULAR_EXPRESSION "ROUND-TRIP OK")
  pvspin_sim_cli_expect(sim_cli_json_seed_too_big 1
    "sim_seed_too_big.json:1: too big integer.*write a seed above 9223372036854775807 as a string"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_seed_too_big.json)
  # --seeds never wraps past 2^64 - 1
  pvspin_sim_cli_expect(sim_cli_seeds_wrap 2
    "--seeds 2 from seed 18446744073709551615 would pass 2\\^64 - 1. give a seed up to 18446744073709551614"
    ${P} sim --preset smoke --seed 18446744073709551615 --seeds 2)
  # a key given twice in one scenario file is refused, not "the last one
  # wins": a malformed file (exit 1), whichever key, preset included, INI
  # or JSON (also test_sim.c)
  pvspin_sim_cli_expect(sim_cli_json_duplicate_key 1
    "sim_duplicate_key.json:1: duplicate object key near '\"vms\"'"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_duplicate_key.json)
  pvspin_sim_cli_expect(sim_cli_json_duplicate_preset 1
    "sim_duplicate_preset.json:3: duplicate object key near '\"preset\"'"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_duplicate_preset.json)
  pvspin_sim_cli_expect(sim_cli_ini_duplicate_key 1
    "^pvspin sim: [^\n]*sim_duplicate_key.ini:3: 'vms' given twice \\(lines 1 and 3\\). give it once\n"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_duplicate_key.ini)
  pvspin_sim_cli_expect(sim_cli_ini_duplicate_preset 1
    "^pvspin sim: [^\n]*sim_duplicate_preset.ini:4: 'preset' given twice \\(lines 2 and 4\\). give it once\n"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_duplicate_preset.ini)
  # on the command line a later --set of a key wins (the run stops at
  # 2 ms, not 1 ms), and a --set wins over the file's key (the file says
  # seconds = 0.002)
  pvspin_sim_cli_output(sim_cli_set_twice_later_wins 0 "stop end at 0.002000 s"
    ${P} sim --preset smoke --set seconds=0.001 --set seconds=0.002)
  pvspin_sim_cli_output(sim_cli_set_over_file 0 "stop end at 0.003000 s"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_preset_smoke.ini --set seconds=0.003)
  # the order is not the command line's (sim/README.md): a --set
  # written before the file still wins over the file's key, and --seed
  # wins over a --set seed= written after it
  pvspin_sim_cli_output(sim_cli_set_before_file 0 "stop end at 0.003000 s"
    ${P} sim --set seconds=0.003 ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_preset_smoke.ini)
  pvspin_sim_cli_output(sim_cli_seed_over_later_set 0 "\"config\": {[^}]*\"seed\": 5,"
    ${P} sim --seed 5 --preset smoke --set seed=9 --set seconds=0.001 --json -)

  # latency_ns.count counts acquisitions, ops the operations finished: with
  # fixed work (4 vCPUs x 300, "stop": "done") every acquisition's operation
  # finished and the two are equal (sim/README.md, JSON); a run stopped by
  # time may count the waits of vCPUs still in their critical section
  pvspin_sim_cli_output(sim_cli_latency_count_is_ops 0
    "\"stop\": \"done\".*\"ops\": 1200,[^}]*\"latency_ns\": {[^}]*\"count\": 1200,"
    ${P} sim --preset smoke --set work=300 --json -)

  # Jain's index of a VM whose vCPUs finished no operation is 0 / 0: null in
  # the JSON and '-' in the summary (it said 1, a perfectly fair VM, for a
  # 1 us run of 0 ops)
  pvspin_sim_cli_output(sim_cli_jain_no_ops_json 0 "\"ops\": 0,.*\"jain\": null,"
    ${P} sim --preset smoke --set seconds=0.000001 --json -)
  pvspin_sim_cli_output(sim_cli_jain_no_ops_text 0 "ops 0, ops/s 0, wait -, jain -, cpu"
    ${P} sim --preset smoke --set seconds=0.000001)
  # with --seeds, a figure null in some seeds only (here vm1 finished no
  # operation in seed 3) is given seed by seed, '-' for null, not left
  # out without a word (helper-61)
  # ... and a VM that finished no operation in any seed keeps one line,
  # its jain '-' (it vanished from the text: helper-62)
  pvspin_sim_cli_output(sim_cli_seeds_null_all 0
    "vms.0..jain +- +.no operation finished in any seed."
    ${P} sim --preset smoke --set seconds=0.000001 --seeds 3)
  pvspin_sim_cli_output(sim_cli_seeds_null_some 0
    "vms.1..jain +per seed: [0-9.]+, [0-9.]+, -, "
    ${P} sim --preset smoke --set vms=2 --set seconds=0.0005 --seeds 6)

  # The VM number of a vmN.KEY key is 0..63 and never wraps (2^32 is not vm0).
  pvspin_sim_cli_expect(sim_cli_vm_number_wrap 2
    "bad key 'vm4294967296.lock': VM numbers go from 0 to 63"
    ${P} sim --preset smoke --set vms=2 --set vm4294967296.lock=tas)

  # The N of vmN.KEY is canonical decimal: vm00.lock was run as vm0.lock
  # (exit 0) and vm01.lock said "a vm1.* key is set"; a leading zero, a
  # sign or a blank is refused, naming the key and the number (exit 2).
  add_test(NAME sim_cli_vm_number_canonical COMMAND sh -c
    "p=\"$0\"; fail=0
     for k in vm00.lock vm01.lock vm+1.lock 'vm 1.lock' vm0x.lock; do
       n=\${k#vm}; n=\${n%.lock}
       e=$(\"$p\" sim --set \"$k=tas\" 2>&1 >/dev/null); r=$?
       w=\"pvspin sim: bad key '$k': '$n' is not a VM number; write it in decimal without a sign, blank or leading zero (vm0 to vm63)\"
       [ \"$r:$e\" = \"2:$w\" ] || { echo \"FAIL $k: exit $r: '$e'\"; fail=1; }
     done; [ $fail -eq 0 ] && echo vm-number-ok" ${P})
  set_tests_properties(sim_cli_vm_number_canonical PROPERTIES PASS_REGULAR_EXPRESSION "vm-number-ok")

  # A key that looks like vmN but is not vmN.KEY is an unknown key listing the
  # valid keys, on --set, in INI and in JSON (it used to exit 2 silently).
  pvspin_sim_cli_expect(sim_cli_vm_key_typo_set 2 "unknown key 'vm0lock'. valid keys: vms.*vmN.lock"
    ${P} sim --preset smoke --set vm0lock=tas)
  pvspin_sim_cli_expect(sim_cli_vm_key_typo_dot 2 "unknown key 'vm0x.bogus'. valid keys: vms"
    ${P} sim --preset smoke --set vm0x.bogus=tas)
  pvspin_sim_cli_expect(sim_cli_vm_key_typo_ini 2
    "unknown key 'vm1_lock'. valid keys: vms.*sim_vm_key_typo.ini:3: "
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_vm_key_typo.ini)
  pvspin_sim_cli_expect(sim_cli_vm_key_typo_json 2 "unknown key 'vm0'. valid keys: vms"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_vm_key_typo.json)

  # An indented INI line is its own KEY = VALUE line (not glued to the value
  # above it as an inih continuation line); an error quotes the real line.
  pvspin_sim_cli_output(sim_cli_ini_indented 0 "preset smoke, lock qspinlock, 2 VM.*stop end at 0.001000 s"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_indented.ini)
  pvspin_sim_cli_expect(sim_cli_ini_indented_bad 2
    "vms=2x: not an integer.*sim_indented_bad.ini:2: in the line '  vms = 2x'"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_indented_bad.ini)

  # Messages: a boolean key lists every accepted spelling; a per-VM PLE that
  # the profile lacks names vmN.ple; one VM is "1 VM".
  pvspin_sim_cli_expect(sim_cli_bool_spellings 2
    "pv_unhalt=maybe: not 0 or 1 \\(also off/on, no/yes, false/true\\)\n"
    ${P} sim --preset smoke --set pv_unhalt=maybe)
  pvspin_sim_cli_expect(sim_cli_tri_spellings 2
    "vm0.ple=maybe: not 0 or 1 \\(also off/on, no/yes, false/true\\) or default\n"
    ${P} sim --preset smoke --set vm0.ple=maybe)
  pvspin_sim_cli_expect(sim_cli_vm_ple_profile 2
    "vm1.ple=1 but profile loongarch-3c5000 has no Pause-Loop Exiting. set vm1.ple=0 or vm1.ple=default"
    ${P} sim --set vms=2 --set vm1.ple=1 --set profile=loongarch-3c5000)
  pvspin_sim_cli_expect(sim_cli_vm_beyond_one 2
    "a vm3.\\* key is set but there is only 1 VM \\(vm0\\)\n"
    ${P} sim --preset smoke --set vm3.lock=tas)
  pvspin_sim_cli_expect(sim_cli_vm_beyond_two 2
    "a vm3.\\* key is set but there are only 2 VMs \\(vm0 .. vm1\\)\n"
    ${P} sim --preset smoke --set vms=2 --set vm3.lock=tas)

  # JSON scenarios: an error names the file and the key; true/false are no
  # numbers; "preset" must be a name; a .JSON (any case) file is JSON.
  pvspin_sim_cli_expect(sim_cli_json_bad_value 2
    "vms=2.5: not an integer.*sim_json_bad_value.json: in the key 'vms'"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_json_bad_value.json)
  pvspin_sim_cli_expect(sim_cli_json_bool_int 2
    "vms=true: not an integer.*sim_json_bool_int.json: in the key 'vms'"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_json_bool_int.json)
  pvspin_sim_cli_expect(sim_cli_json_preset_null 2
    "sim_json_preset_null.json: key 'preset' must be a preset name \\(a string\\)"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_json_preset_null.json)
  pvspin_sim_cli_output(sim_cli_json_upper_case 0 "preset smoke, lock qspinlock, 2 VM.*stop end at 0.001000 s"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_upper_case.JSON)

  # `pvspin sim -` reads the scenario from stdin: JSON if it starts with '{'
  # (e.g. the --json - of another run), else INI; errors name "<stdin>".
  add_test(NAME sim_cli_stdin_ini COMMAND sh -c "\"$0\" sim - < \"$1\" 2>&1; echo \"exit=$?\""
    ${P} ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_indented.ini)
  set_tests_properties(sim_cli_stdin_ini PROPERTIES PASS_REGULAR_EXPRESSION
    "preset smoke, lock qspinlock, 2 VM.*stop end at 0.001000 s.*exit=0")
  add_test(NAME sim_cli_stdin_json COMMAND sh -c
    "\"$0\" sim --preset smoke --set seconds=0.001 --set vms=3 --json - | \"$0\" sim - 2>&1; echo \"exit=$?\""
    ${P})
  set_tests_properties(sim_cli_stdin_json PROPERTIES PASS_REGULAR_EXPRESSION
    "preset smoke, lock qspinlock, 3 VM.*stop end at 0.001000 s.*exit=0")
  add_test(NAME sim_cli_stdin_error COMMAND sh -c "\"$0\" sim - < \"$1\" 2>&1; echo \"exit=$?\""
    ${P} ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_indented_bad.ini)
  set_tests_properties(sim_cli_stdin_error PROPERTIES PASS_REGULAR_EXPRESSION
    "<stdin>:2: in the line '  vms = 2x'.*exit=2")

  # A NUL byte in a scenario line is a malformed file (exit 1) named at its
  # line, in INI and JSON, from a file and from stdin (an INI line was cut
  # at the NUL: 'preset = smoke\0lock = tas' ran qspinlock and exited 0).
  foreach(f nul_byte.ini nul_byte.json)
    string(REPLACE "." "_" tag "${f}")
    pvspin_sim_cli_expect(sim_cli_${tag} 1 "^pvspin sim: [^\n]*sim_${f}:2: NUL byte in line\n"
      ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_${f})
    add_test(NAME sim_cli_stdin_${tag} COMMAND sh -c "\"$0\" sim - < \"$1\" 2>&1; echo \"exit=$?\""
      ${P} ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_${f})
    set_tests_properties(sim_cli_stdin_${tag} PROPERTIES PASS_REGULAR_EXPRESSION
      "^pvspin sim: <stdin>:2: NUL byte in line\nexit=1\n$")
  endforeach()

  # An INI scenario line is bounded by libinih's line buffer (Debian's: 200
  # bytes, so 199 characters before the newline), read by the bounded
  # reader that `pvspin detect --cpuid` uses (src/util/line_read.h): a line
  # that just fits runs, one character more is refused naming the line
  # (exit 1), and /dev/zero is refused at its first line, not read whole
  add_test(NAME sim_cli_ini_line_bound COMMAND sh -c
    "p=\"$0\"; t=$(mktemp -d) || exit 1; fail=0
     pad() { printf 'preset = smoke\\nseconds = 0.001 ;%*s\\n' $(($1 - 17)) x > \"$t/s.ini\"; }
     pad 199; [ $(sed -n 2p \"$t/s.ini\" | wc -c) -eq 200 ] || { echo 'FAIL: pad'; fail=1; }
     e=$(\"$p\" sim \"$t/s.ini\" 2>&1 >/dev/null); r=$?
     [ $r -eq 0 ] || { echo \"FAIL 199: exit $r: $e\"; fail=1; }
     pad 200; e=$(\"$p\" sim \"$t/s.ini\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: $t/s.ini:2: line longer than 199 characters\" ] ||
       { echo \"FAIL 200: exit $r: $e\"; fail=1; }
     e=$(timeout 20 \"$p\" sim /dev/zero 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: /dev/zero:1: NUL byte in line\" ] ||
       { echo \"FAIL /dev/zero: exit $r: $e\"; fail=1; }
     rm -r \"$t\"; [ $fail -eq 0 ] && echo ini-line-bound-ok" ${P})
  set_tests_properties(sim_cli_ini_line_bound PROPERTIES PASS_REGULAR_EXPRESSION "ini-line-bound-ok"
    TIMEOUT 60)

  # --seeds N: the seeds seed .. seed+N-1, the median and min-max of every
  # figure in text and JSON; a seed that stops is exit 1 with its report.
  pvspin_sim_cli_output(sim_cli_seeds_text 0
    "3 seeds \\(1 \\.\\. 3\\), stop end in every seed\n.*\n  vms\\[0\\]\\.ops_per_s +[0-9]+  \\[[0-9]+ \\.\\. [0-9]+\\]\n"
    ${P} sim --preset smoke --set seconds=0.002 --seeds 3)
  pvspin_sim_cli_output(sim_cli_seeds_json 0
    "\"seeds\": \\[\n +5,\n +6\n +\\],\n +\"summary\": \\{.*\"ops_per_s\": \\{\n +\"median\": [0-9.]+,\n +\"min\": [0-9.]+,\n +\"max\": [0-9.]+\n.*\"runs\": \\[\n +\\{\n +\"config\""
    ${P} sim --preset smoke --set seconds=0.002 --seed 5 --seeds 2 --json -)
  pvspin_sim_cli_output(sim_cli_seeds_deadlock 1
    "seed 1: DEADLOCK.*seed 2: DEADLOCK"
    ${P} sim --set lock=pvqspinlock --set workload=spawn --set cs_us=5 --set work=200
    --set spin_threshold=64 --set lose_kicks=1 --set seconds=0.05 --seeds 2)
  pvspin_sim_cli_expect(sim_cli_seeds_zero 2 "^pvspin sim: --seeds 0: not an integer from 1 to 1000\n"
    ${P} sim --preset smoke --seeds 0)
  # counts are plain decimals, as every tool's numbers (a blank or a sign
  # was let through by strtol)
  pvspin_sim_cli_expect(sim_cli_seeds_blank 2 "^pvspin sim: --seeds ' 2': not an integer from 1 to 1000\n"
    ${P} sim --preset smoke --seeds " 2")
  pvspin_sim_cli_expect(sim_cli_fuzz_plus 2 "^pvspin sim: --fuzz \\+5: not an integer from 1 to 1000000\n"
    ${P} sim --fuzz +5)
  pvspin_sim_cli_expect(sim_cli_seeds_fuzz 2 "--fuzz draws its own configurations.*'--seeds' given"
    ${P} sim --fuzz 2 --seeds 2)

  # --keys gives the VM number range and the boolean spellings.
  pvspin_sim_cli_output(sim_cli_keys_ranges 0
    "preset +apply a preset first, wherever.*vmN.KEY .*\\(N from 0 to 63\\).*booleans: +0 or 1 \\(also off/on"
    ${P} sim --keys)

  # --json naming the file stdout is on (/dev/stdout) is --json -: the
  # report is written through stdout, after what stdout already holds (it
  # was opened again and truncated, a log of `>>` lost its lines); --fuzz's
  # summary line stays before the report (the report overwrote it).
  add_test(NAME sim_cli_json_names_stdout COMMAND sh -c
    "echo keep > \"$1\" && \"$0\" sim --preset smoke --json /dev/stdout >> \"$1\" && head -1 \"$1\" && \
     \"$0\" sim --fuzz 2 --json /dev/stdout > \"$1\" && head -2 \"$1\"; rm -f \"$1\""
    ${P} ${CMAKE_CURRENT_BINARY_DIR}/sim_cli_json_names_stdout.out)
  set_tests_properties(sim_cli_json_names_stdout PROPERTIES PASS_REGULAR_EXPRESSION
    "^keep\npvspin sim --fuzz: 2 runs, 0 broken [^\n]*SUCCESS\n{\n$")
endif()

# A report written to a full stdout is a failure (exit 1), for the pvspin
# command and for the simulator it execs.
add_test(NAME cli_full_stdout_is_failure COMMAND sh -c
  "$<TARGET_FILE:pvspin> sim --preset smoke --json - > /dev/full; test $? -eq 1 && \
   $<TARGET_FILE:pvspin> detect --interval-ms 1 > /dev/full; test $? -eq 1")

# sim/reproduce.sh with a missing or non-executable pvspin-sim says so
# (exit 1) instead of Python tracebacks.
add_test(NAME sim_reproduce_missing_sim COMMAND sh -c
  "sh \"$0\" /nonexistent/pvspin-sim 2>&1; echo \"exit=$?\"; sh \"$0\" \"$1\" 2>&1; echo \"exit=$?\""
  ${PROJECT_SOURCE_DIR}/sim/reproduce.sh ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_indented.ini)
set_tests_properties(sim_reproduce_missing_sim PROPERTIES
  PASS_REGULAR_EXPRESSION "^pvspin-sim not found at /nonexistent/pvspin-sim \\(build it with make check, or pass the binary, its directory or the build tree\\)\nexit=1\npvspin-sim not found at [^\n]*sim_indented.ini \\(build it with make check, or pass the binary, its directory or the build tree\\)\nexit=1\n$"
  FAIL_REGULAR_EXPRESSION "Traceback")

# Issue 12.  Two different --preset options conflict as --preset and --set
# preset= do (the same one twice is one preset).
if(TARGET pvspin_sim_core AND TARGET pvspin)
  pvspin_sim_cli_expect(sim_cli_two_preset_options 2
    "two presets given \\(--preset smoke, --preset kcbench-no-ple\\). give one"
    ${P} sim --preset smoke --preset kcbench-no-ple)
  pvspin_sim_cli_output(sim_cli_same_preset_option_twice 0 "preset smoke, .*stop end at 0.001000 s"
    ${P} sim --preset smoke --preset smoke --set seconds=0.001)
  # the rseq time-slice extension (slice_ext_us): 0 or 5-50, and only where
  # a vCPU stands for a thread (the machine twin); on, a spinpark holder
  # that waited gets preemptions deferred and gives them back
  # (one valid set in both refusals: above 50 said "a number from 0 to 50",
  # which 3 is, and 3 "... 5 to 50 (the kernel's shortest ...)")
  pvspin_sim_cli_expect(sim_cli_slice_ext_below_min 2
    "slice_ext_us=3: not 0 \\(off\\) or a number from 5 to 50\n"
    ${P} sim --preset twin --set slice_ext_us=3)
  pvspin_sim_cli_expect(sim_cli_slice_ext_above_max 2
    "slice_ext_us=51: not 0 \\(off\\) or a number from 5 to 50\n"
    ${P} sim --preset twin --set slice_ext_us=51)
  pvspin_sim_cli_expect(sim_cli_slice_ext_not_twin 2
    "slice_ext_us needs a profile whose vCPUs stand for threads"
    ${P} sim --preset smoke --set slice_ext_us=5)
  pvspin_sim_cli_output(sim_slice_ext_summary 0
    "slice extension: [1-9][0-9]* preemptions deferred, [0-9]+ given back"
    ${P} sim --preset twin --set lock=spinpark --set vcpus=8 --set slice_ext_us=5)
  pvspin_sim_cli_output(sim_slice_ext_grants 0
    "\"slice_ext_grants\": [1-9][0-9]*,[^}]*\"slice_ext_yields\": [1-9]"
    ${P} sim --preset twin --set lock=spinpark --set vcpus=8 --set slice_ext_us=5 --json -)
  # two --json options: refused, not the last one silently (a new user's
  # report: nothing on stdout, exit 0)
  pvspin_sim_cli_expect(sim_cli_two_seed_counts 2
    "two seed counts given \\(--seeds 2, --seeds 3\\). give one"
    ${P} sim --preset smoke --seeds 2 --seeds 3)
  pvspin_sim_cli_expect(sim_cli_two_json_options 2
    "two reports given \\(--json -, --json /nonexistent/x.json\\). give one"
    ${P} sim --preset smoke --json - --json /nonexistent/x.json)

  # An empty scenario (no KEY = VALUE line: an empty file, only comments,
  # an empty "config", empty stdin) is an error naming it, not the default run.
  foreach(f empty.ini comments_only.ini empty.json)
    string(REPLACE "." "_" tag "${f}")
    pvspin_sim_cli_expect(sim_cli_${tag} 1 "pvspin sim: [^\n]*sim_${f}: empty scenario"
      ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_${f})
  endforeach()
  # A JSON scenario (a .json file, or stdin starting with '{') is read
  # whole for jansson; a scenario is at most 1 GiB (the largest report
  # `pvspin sim --json` writes, --seeds 1000 of 4096 vCPUs, is ~220 MB).
  # More is refused naming the input and the bound, exit 1 as any input
  # that cannot be used as a scenario (a line too long, a NUL byte; it was
  # exit 2, bad usage, alone of them): a regular file by its size, before
  # it is read.  A NUL byte stops the reading where it
  # is (/dev/zero, as a .json file and on stdin, was read whole: a 2 GB
  # address-space limit ran out of memory in 2 s; unlimited, it took the
  # machine's memory).  An INI scenario on stdin is read line by line, as
  # an INI file is, and stops at a line that is not INI (`yes` was read
  # whole too); a --seeds report piped back runs its "config".
  add_test(NAME sim_cli_json_size_bound COMMAND sh -c
    "p=\"$0\"; t=$(mktemp -d) || exit 1; fail=0; ulimit -v 2000000
     big='larger than 1 GiB (1073741824 bytes), the most pvspin sim reads of a scenario'
     ln -s /dev/zero \"$t/zero.json\"
     e=$(timeout 20 \"$p\" sim \"$t/zero.json\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: $t/zero.json:1: NUL byte in line\" ] ||
       { echo \"FAIL zero.json: exit $r: $e\"; fail=1; }
     e=$(timeout 20 \"$p\" sim - < /dev/zero 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: <stdin>:1: NUL byte in line\" ] ||
       { echo \"FAIL stdin /dev/zero: exit $r: $e\"; fail=1; }
     e=$({ printf ' \\n{'; cat /dev/zero; } | timeout 20 \"$p\" sim - 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: <stdin>:2: NUL byte in line\" ] ||
       { echo \"FAIL stdin {/dev/zero: exit $r: $e\"; fail=1; }
     printf '{' > \"$t/big.json\" && truncate -s 1073741825 \"$t/big.json\" || exit 1
     e=$(timeout 20 \"$p\" sim \"$t/big.json\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: $t/big.json: $big\" ] || { echo \"FAIL big.json: exit $r: $e\"; fail=1; }
     e=$(timeout 20 \"$p\" sim - < \"$t/big.json\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: <stdin>: $big\" ] || { echo \"FAIL stdin big: exit $r: $e\"; fail=1; }
     truncate -s 1073741825 \"$t/big.ini\" || exit 1
     e=$(timeout 20 \"$p\" sim \"$t/big.ini\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: $t/big.ini: $big\" ] || { echo \"FAIL big.ini: exit $r: $e\"; fail=1; }
     # on stdin too, by its size before the line reader (which has no
     # descriptor): it was read as INI and refused at its NUL byte, and a
     # text file would have been read up to the bound first
     e=$(timeout 20 \"$p\" sim - < \"$t/big.ini\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: <stdin>: $big\" ] || { echo \"FAIL stdin big.ini: exit $r: $e\"; fail=1; }
     truncate -s 1073741824 \"$t/big.json\"
     e=$(timeout 20 \"$p\" sim \"$t/big.json\" 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: $t/big.json:1: NUL byte in line\" ] ||
       { echo \"FAIL 1 GiB: exit $r: $e\"; fail=1; }
     o=$(\"$p\" sim --preset smoke --set seconds=0.001 --set vcpus=64 --seeds 2 --json - |
         \"$p\" sim - 2>&1); r=$?
     echo \"$o\" | grep -q '^pvspin sim: preset smoke, lock qspinlock, 1 VM x 64 vCPUs' && [ $r -eq 0 ] ||
       { echo \"FAIL seeds report: exit $r: $o\"; fail=1; }
     o=$(printf '\\n  preset = smoke\\n\\n seconds = 0.001\\n' | \"$p\" sim - 2>&1); r=$?
     echo \"$o\" | grep -q '^pvspin sim: preset smoke, .* stop end at 0.001000 s' && [ $r -eq 0 ] ||
       { echo \"FAIL stdin ini: exit $r: $o\"; fail=1; }
     e=$(printf '\\n\\n  vms = 2x\\n' | \"$p\" sim - 2>&1 >/dev/null); r=$?
     echo \"$e\" | grep -q \"^pvspin sim: <stdin>:3: in the line '  vms = 2x'\" && [ $r -eq 2 ] ||
       { echo \"FAIL stdin ini line: exit $r: $e\"; fail=1; }
     e=$(yes | timeout 20 \"$p\" sim - 2>&1 >/dev/null); r=$?
     [ \"$r:$e\" = \"1:pvspin sim: <stdin>:1: not an INI 'key = value' line\" ] ||
       { echo \"FAIL yes: exit $r: $e\"; fail=1; }
     rm -r \"$t\"; [ $fail -eq 0 ] && echo json-size-bound-ok" ${P})
  set_tests_properties(sim_cli_json_size_bound PROPERTIES PASS_REGULAR_EXPRESSION "json-size-bound-ok"
    TIMEOUT 120)
  # `pvspin help sim` gives the exit statuses, as bench's help does, the
  # 1 GiB bound and a key given twice in the file among the inputs that
  # failed (exit 1, sim_cli_ini_duplicate_key: the help said only "a key
  # ... in the scenario" under exit 2), a bad key or value in the scenario
  # among the bad usage (exit 2), a later --set of a key winning
  # (sim_cli_set_twice_later_wins), and the signals' statuses (a shell
  # pattern, not PASS_REGULAR_EXPRESSION: a ';' splits that into
  # a list of regexes, any one of which passed: "Exit status: 0 success"
  # alone did)
  add_test(NAME sim_cli_help_exit_status COMMAND sh -c
    "h=$(\"$0\" help sim | tr '\\n' ' ' | tr -s ' ')
     case \"$h\" in *'Exit status: 0 success; 1 a run stopped on a deadlock'*'a key given twice in it, '*'larger than 1 GiB, a pvspin bench report)'*'; 2 bad usage: an option, a key or a value, on the command line or in the scenario, '*'Of two --set of one other key the later wins, '*'then the signal ends the process (exit 130, 143, 129)'*)
       echo help-exit-status-ok;; *) echo \"$h\";; esac" ${P})
  set_tests_properties(sim_cli_help_exit_status PROPERTIES PASS_REGULAR_EXPRESSION
    "help-exit-status-ok")
  add_test(NAME sim_cli_stdin_empty COMMAND sh -c "\"$0\" sim - < /dev/null 2>&1; echo \"exit=$?\"" ${P})
  set_tests_properties(sim_cli_stdin_empty PROPERTIES PASS_REGULAR_EXPRESSION
    "^pvspin sim: <stdin>: empty scenario[^\n]*\nexit=1")

  # '#' and ';' comments, at the start of a line and after a value.
  pvspin_sim_cli_output(sim_cli_ini_comments 0 "preset smoke, lock qspinlock, 2 VM.*stop end at 0.001000 s"
    ${P} sim ${CMAKE_CURRENT_SOURCE_DIR}/data/sim_comments.ini)

  # --fuzz shows its progress when stderr is a terminal (script(1) gives it one).
  find_program(PVSPIN_SCRIPT script)
  if(PVSPIN_SCRIPT)
    add_test(NAME sim_fuzz_progress_tty COMMAND ${PVSPIN_SCRIPT} -qec "${P} sim --fuzz 3 --seed 7" /dev/null)
    set_tests_properties(sim_fuzz_progress_tty PROPERTIES PASS_REGULAR_EXPRESSION
      "run 3/3, 0 broken.*3 runs, 0 broken \\(seed 7\\): SUCCESS")
  endif()
endif()

# The machine twin (sim/README.md): its scheduler and the preset's fair-lock
# collapse, in a test of its own (~8 s).
if(TARGET pvspin_sim_core)
  add_executable(test_sim_twin test_sim_twin.c $<TARGET_OBJECTS:pvspin_sim_core>)
  target_link_libraries(test_sim_twin PRIVATE pvspin_sim_core PkgConfig::CMOCKA)
  add_test(NAME test_sim_twin COMMAND test_sim_twin)
endif()
