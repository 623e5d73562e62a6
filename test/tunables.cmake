# The environment tunables (PVSPIN_SPIN_THRESHOLD, ...) are read and
# checked once, when the library is loaded, not by the first slow path: a
# bad value is reported exactly once even by a program whose locks never
# contend (issue 12).  Included by test/CMakeLists.txt.
add_executable(test_tunables_env test_tunables_env.c)
target_link_libraries(test_tunables_env PRIVATE pvspin_static)
# Numbers are plain decimal, as on every command line: 0x10, +5 and " 7"
# are refused (strtoul would take them, 010 as octal 8).  A boolean is 0
# or 1, said so ("yes" was refused as "expected a decimal integer from 0
# to 1", while pvspin sim's key takes it: docs/tuning.md, "Values").
foreach(case "PVSPIN_SPIN_THRESHOLD|99999999999999|spin_threshold|pvqspinlock|a decimal integer from 1 to 4294967295|2048"
             "PVSPIN_TAS_BACKOFF_MAX|xyz|tas_backoff_max|tas|a decimal integer from 0 to 4294967295|0"
             "PVSPIN_PENDING_LOOPS|0x10|pending_loops|qspinlock|a decimal integer from 1 to 4294967295|512"
             "PVSPIN_EARLY_HALT_PREEMPTED|yes|early_halt_preempted|pvqspinlock|0 \\(off\\) or 1 \\(on\\)|0"
             "PVSPIN_MUTEX_SPIN_LIMIT|-1|mutex_spin_limit|tas|a decimal integer from 0 to 4294967295|0")
  string(REPLACE "|" ";" f "${case}")
  list(GET f 0 var)
  list(GET f 1 value)
  list(GET f 2 name)
  list(GET f 3 kind)
  list(GET f 4 range)
  list(GET f 5 default)
  add_test(NAME tunables_env_${name} COMMAND test_tunables_env)
  set_tests_properties(tunables_env_${name} PROPERTIES LABELS sanitize
    ENVIRONMENT "${var}=${value};PVSPIN_LOCK=${kind}"
    PASS_REGULAR_EXPRESSION "pvspin: ignoring ${var}=${value}: not a valid value for ${name} \\(expected ${range}. the default ${default} is used\\)\n"
    FAIL_REGULAR_EXPRESSION "ignoring ${var}[^\n]*\n.*ignoring ${var}")
endforeach()


# The `pvspin` tool refuses a bad tunable instead: bench and torture exit
# 2 before they measure, with one line naming the variable and its range
# (pvspin_tunables_check_env()) and no "ignoring" line from the tool's own
# copy of the library (tools/pvspin/main.c turns the load-time report
# off).  detect and sim, which take no value from the tunables, go on
# (exit 0, their output as without it) and say so once, in the library's
# words with their own prefix: "pvspin detect: ignoring ..." (they said
# nothing; the library in any other program says "pvspin: ignoring ...").
# A bad PVSPIN_STATS too, in run's words (tools/pvspin/env_check.c).
# `pvspin run`: test/preload.cmake, preload_run_bad_tunable, and
# test/torture.cmake, run_cli_env_typo_with_option.
if(TARGET pvspin)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/tunables_env_tools.sh
"x='PVSPIN_PENDING_LOOPS=0x10: not a valid value for pending_loops (expected a decimal integer from 1 to 4294967295'
for c in bench torture; do
  e=$(PVSPIN_PENDING_LOOPS=0x10 \"$1\" $c 2>&1); r=$?
  [ $r -eq 2 ] || { echo \"$c: exit $r: $e\"; exit 1; }
  [ \"$e\" = \"pvspin $c: bad $x)\" ] || { echo \"$c: got '$e'\"; exit 1; }
done
# a boolean tunable: 0 or 1 only, said so (the words are pvspin sim's
# key spellings: `sim --set early_halt_preempted=yes` is taken)
e=$(PVSPIN_EARLY_HALT_PREEMPTED=yes \"$1\" bench --threads 1 --locks tas --duration-ms 10 --repeat 1 2>&1); r=$?
[ $r -eq 2 ] && [ \"$e\" = 'pvspin bench: bad PVSPIN_EARLY_HALT_PREEMPTED=yes: not a valid value for early_halt_preempted (expected 0 (off) or 1 (on))' ] ||
  { echo \"bench boolean: exit $r: '$e'\"; exit 1; }
# so is a bad PVSPIN_STATS, as by run (tool_env_check(): they exited 0,
# their --help saying exit 2); 0, 1 and empty are not refused
b='bench --threads 1 --locks tas --duration-ms 10 --repeat 1'
t='torture --lock tas --threads 2 --seconds 1'
for c in \"$b\" \"$t\"; do
  n=\"pvspin $(echo $c | cut -d ' ' -f 1)\"
  e=$(PVSPIN_STATS=2 \"$1\" $c 2>&1 >/dev/null); r=$?
  [ $r -eq 2 ] || { echo \"$n stats: exit $r: $e\"; exit 1; }
  [ \"$e\" = \"$n: PVSPIN_STATS=2: expected 1 (on) or 0 (off)\" ] || { echo \"$n stats: got '$e'\"; exit 1; }
done
for v in 0 1 ''; do
  PVSPIN_STATS=$v \"$1\" $b >/dev/null 2>&1 || { echo \"bench PVSPIN_STATS='$v': exit $?\"; exit 1; }
done
PVSPIN_STATS=1 \"$1\" $t >/dev/null 2>&1 || { echo \"torture PVSPIN_STATS=1: exit $?\"; exit 1; }
# (stderr less the sanitizers' own notes: ASan's \"==PID==WARNING: ...
# makecontext\" from the simulator)
o=$(PVSPIN_PENDING_LOOPS=0x10 \"$1\" detect --interval-ms 0 2>/tmp/tunables_env_tools.$$); r=$?
e=$(grep -v '^==[0-9]*==' /tmp/tunables_env_tools.$$); rm -f /tmp/tunables_env_tools.$$
[ $r -eq 0 ] || { echo \"detect: exit $r: '$e'\"; exit 1; }
[ \"$e\" = \"pvspin detect: ignoring $x; the default 512 is used)\" ] || { echo \"detect: got '$e'\"; exit 1; }
case \"$o\" in *'policy '*'lock '*reason*) ;; *) echo \"detect: no report: '$o'\"; exit 1;; esac
e=$(PVSPIN_PENDING_LOOPS=0x10 \"$1\" detect --help 2>&1 >/dev/null); r=$?
[ $r -eq 0 ] && [ -z \"$e\" ] || { echo \"detect --help: exit $r: '$e'\"; exit 1; }
if [ -x \"$2\" ]; then
  o=$(PVSPIN_PENDING_LOOPS=0x10 \"$1\" sim --preset smoke --json - 2>/tmp/tunables_env_tools.$$); r=$?
  e=$(grep -v '^==[0-9]*==' /tmp/tunables_env_tools.$$); rm -f /tmp/tunables_env_tools.$$
  [ $r -eq 0 ] || { echo \"sim: exit $r: '$e'\"; exit 1; }
  [ \"$e\" = \"pvspin sim: ignoring $x; pvspin sim takes tunables only as configuration keys, never from the environment)\" ] ||
    { echo \"sim: got '$e'\"; exit 1; }
  # the same simulation (less the wall-clock figures)
  w() { grep -v -e events_per_s -e wall_seconds; }
  [ \"$(echo \"$o\" | w)\" = \"$(\"$1\" sim --preset smoke --json - | w)\" ] || { echo 'sim: another result'; exit 1; }
  # a valid value is not applied either, and said so once (it was
  # ignored silently): the key to use instead, or for the interposer's
  # mutex limit that nothing here reads it
  # (with --seeds 2: once, not once per seed's process)
  PVSPIN_SPIN_THRESHOLD=64 PVSPIN_MUTEX_SPIN_LIMIT=100 PVSPIN_TAS_BACKOFF_MAX= \"$1\" sim --preset smoke --seeds 2 --json - >/dev/null 2>/tmp/tunables_env_tools.$$; r=$?
  e=$(grep -v '^==[0-9]*==' /tmp/tunables_env_tools.$$); rm -f /tmp/tunables_env_tools.$$
  [ $r -eq 0 ] || { echo \"sim valid: exit $r: '$e'\"; exit 1; }
  [ \"$e\" = \"pvspin sim: ignoring PVSPIN_SPIN_THRESHOLD=64: pvspin sim takes tunables only as configuration keys (--set spin_threshold=64), never from the environment
pvspin sim: ignoring PVSPIN_MUTEX_SPIN_LIMIT=100: only the interposer's mutexes read it (pvspin run); the simulator runs none\" ] ||
    { echo \"sim valid: got '$e'\"; exit 1; }
  o=$(PVSPIN_SPIN_THRESHOLD=64 \"$1\" sim --preset smoke --json - 2>/dev/null)
  [ \"$(echo \"$o\" | w)\" = \"$(\"$1\" sim --preset smoke --json - | w)\" ] || { echo 'sim valid: another result'; exit 1; }
  # PVSPIN_LOCK and PVSPIN_POLICY likewise (they were ignored silently):
  # once each (also with --seeds 2), bad or valid, naming the key
  # `lock`; exit 0 and the same result, as for a tunable (sim takes no
  # value from them)
  k='pvspin sim takes the guest lock kind only as a configuration key'
  p='pvspin sim picks no lock kind by policy; it takes the guest lock kind only as a configuration key (--set lock=KIND), never from the environment'
  PVSPIN_LOCK=tas PVSPIN_POLICY=linux \"$1\" sim --preset smoke --seeds 2 --json - >/dev/null 2>/tmp/tunables_env_tools.$$; r=$?
  e=$(grep -v '^==[0-9]*==' /tmp/tunables_env_tools.$$); rm -f /tmp/tunables_env_tools.$$
  [ $r -eq 0 ] || { echo \"sim kind: exit $r: '$e'\"; exit 1; }
  [ \"$e\" = \"pvspin sim: ignoring PVSPIN_LOCK=tas: $k (--set lock=tas), never from the environment
pvspin sim: ignoring PVSPIN_POLICY=linux: $p\" ] || { echo \"sim kind: got '$e'\"; exit 1; }
  o=$(PVSPIN_LOCK=tas PVSPIN_POLICY=linux \"$1\" sim --preset smoke --json - 2>/dev/null)
  [ \"$(echo \"$o\" | w)\" = \"$(\"$1\" sim --preset smoke --json - | w)\" ] || { echo 'sim kind: another result'; exit 1; }
  PVSPIN_LOCK=bogus PVSPIN_POLICY=bogus \"$1\" sim --preset smoke --json - >/dev/null 2>/tmp/tunables_env_tools.$$; r=$?
  e=$(grep -v '^==[0-9]*==' /tmp/tunables_env_tools.$$); rm -f /tmp/tunables_env_tools.$$
  [ $r -eq 0 ] || { echo \"sim bad kind: exit $r: '$e'\"; exit 1; }
  case \"$e\" in \"pvspin sim: ignoring PVSPIN_LOCK=bogus: not a lock kind; $k (--set lock=KIND, KIND one of qspinlock, \"*\"), never from the environment
pvspin sim: ignoring PVSPIN_POLICY=bogus: not a policy; $p\") ;; *) echo \"sim bad kind: got '$e'\"; exit 1;; esac
  # a bad PVSPIN_STATS: said once, exit 0 (it said nothing); a valid one
  # says nothing
  PVSPIN_STATS=9 \"$1\" sim --preset smoke --json - >/dev/null 2>/tmp/tunables_env_tools.$$; r=$?
  e=$(grep -v '^==[0-9]*==' /tmp/tunables_env_tools.$$); rm -f /tmp/tunables_env_tools.$$
  [ $r -eq 0 ] && [ \"$e\" = \"pvspin sim: ignoring PVSPIN_STATS=9: expected 1 (on) or 0 (off); the simulated guests' lock events are always in the JSON\" ] ||
    { echo \"sim stats: exit $r: got '$e'\"; exit 1; }
  e=$(PVSPIN_STATS=1 \"$1\" sim --preset smoke --json - 2>&1 >/dev/null | grep -v '^==[0-9]*==')
  [ -z \"$e\" ] || { echo \"sim valid stats: got '$e'\"; exit 1; }
fi
echo tunables-env-tools-ok
")
  if(TARGET pvspin-sim)
    set(_sim $<TARGET_FILE:pvspin-sim>)
  else()
    set(_sim "")
  endif()
  add_test(NAME tunables_env_tools COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/tunables_env_tools.sh
           $<TARGET_FILE:pvspin> ${_sim})
  set_tests_properties(tunables_env_tools PROPERTIES LABELS sanitize TIMEOUT 60
    PASS_REGULAR_EXPRESSION "tunables-env-tools-ok")
endif()
