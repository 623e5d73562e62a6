# Tests of the `pvspin` command itself (tools/pvspin/main.c): its help,
# its version, and a help text that cannot be written.  Included by
# test/CMakeLists.txt.
if(NOT TARGET pvspin)
  return()
endif()
set(_pvspin $<TARGET_FILE:pvspin>)

# The usage written to a full stdout is a failure (exit 1, with the
# reason), as for every subcommand; `pvspin help` and --version alike.
add_test(NAME cli_help_full_stdout COMMAND sh -c
  "for a in --help help --version; do e=$(\"$0\" $a 2>&1 >/dev/full); r=$?; \
   [ $r -eq 1 ] || { echo \"$a: exit $r\"; exit 1; }; \
   [ \"$e\" = 'pvspin: cannot write to standard output: No space left on device' ] || \
   { echo \"$a: stderr '$e'\"; exit 1; }; done; echo help-full-ok" ${_pvspin})
set_tests_properties(cli_help_full_stdout PROPERTIES PASS_REGULAR_EXPRESSION "help-full-ok"
                     LABELS sanitize)
# A subcommand's report to a full stdout names the subcommand and the
# error of the flush that failed during the run (pvspin_stdout_flush),
# not "an earlier write failed".
add_test(NAME cli_torture_full_stdout COMMAND sh -c
  "\"$0\" torture --seconds 1 --lock tas --threads 2 > /dev/full; echo \"exit=$?\"" ${_pvspin})
set_tests_properties(cli_torture_full_stdout PROPERTIES LABELS sanitize
  PASS_REGULAR_EXPRESSION "pvspin torture: cannot write to standard output: No space left on device\n.*exit=1")

# `pvspin --version` names the command and the project version;
# `pvspin help COMMAND` is `pvspin COMMAND --help`; `pvspin help NOSUCH`
# is a usage error naming it.
add_test(NAME cli_version COMMAND ${_pvspin} --version)
set_tests_properties(cli_version PROPERTIES
  PASS_REGULAR_EXPRESSION "^pvspin ${PROJECT_VERSION}\n$" LABELS sanitize)
add_test(NAME cli_help_command COMMAND sh -c
  "\"$0\" help detect > \"$1\" && \"$0\" detect --help | cmp - \"$1\" && \
   \"$0\" help run | grep -q '^usage: pvspin run' && echo help-command-ok"
  ${_pvspin} ${CMAKE_CURRENT_BINARY_DIR}/cli_help_detect.txt)
set_tests_properties(cli_help_command PROPERTIES PASS_REGULAR_EXPRESSION "help-command-ok"
                     LABELS sanitize)
# pvspin help help is the command list; extra arguments after --version,
# --help or help COMMAND are usage errors, not silently ignored
add_test(NAME cli_help_help COMMAND sh -c "\"$0\" help help | head -1" ${_pvspin})
set_tests_properties(cli_help_help PROPERTIES
  PASS_REGULAR_EXPRESSION "^usage: pvspin COMMAND" LABELS sanitize)
add_test(NAME cli_extra_args COMMAND sh -c
  "for a in '--version x' '--help x' 'help bench x'; do \"$0\" $a > /dev/null 2>&1; echo \"exit=$?\"; done"
  ${_pvspin})
set_tests_properties(cli_extra_args PROPERTIES
  PASS_REGULAR_EXPRESSION "^exit=2\nexit=2\nexit=2\n$" LABELS sanitize)
# Every subcommand alike: -h / --help alone prints the usage on stdout
# (exit 0); an operand with it (before or after) or an unknown option
# after it is a usage error, not the help (`pvspin bench -h extra` and
# `pvspin bench -h --bogus` exited 0); a stray operand to a subcommand
# that takes none is said in the same words by bench, torture and detect
# (they said "unexpected argument", in three shapes), and a second one by
# sim, which takes one.  Run's operand is a program: run says that
# --help takes none.
add_test(NAME cli_help_operand COMMAND sh -c
  "p=\"$0\"; fail=0; t=$(mktemp) || exit 1
   chk() { w=$1; shift; o=$(\"$p\" \"$@\" 2>\"$t\"); r=$?
     e=$(grep -v -e '^==[0-9]*==' -e '^$' \"$t\")
     [ \"$r:$o:$e\" = \"$w\" ] || { printf 'FAIL: %s: exit %s: out [%.60s] err [%s]\\n' \"$*\" $r \"$o\" \"$e\"; fail=1; }; }
   for c in bench torture sim detect run; do
     n=\"pvspin $c\"; l=\"($n --help lists the options)\"
     for h in -h --help; do
       o=$(\"$p\" $c $h 2>\"$t\"); r=$?
       case \"$r:$o\" in \"0:usage: $n \"*) ;; *) echo \"FAIL: $c $h: exit $r\"; fail=1;; esac
       if [ $c = run ]; then w=\"--help takes no program ('extra')\"; else w=\"unexpected operand 'extra'\"; fi
       chk \"2::$n: $w
$l\" $c $h extra
       chk \"2::$n: unknown option '--bogus'
$l\" $c $h --bogus
       [ $c = run ] || chk \"2::$n: unexpected operand 'extra'
$l\" $c extra $h
     done
     case $c in bench|torture|detect) chk \"2::$n: unexpected operand 'extra'
$l\" $c extra;; esac
     # sim takes one operand, the scenario: a second is stray, said alike
     # (it was \"one scenario file at most ('extra' is extra)\"), before
     # the first is read
     [ $c = sim ] && chk \"2::$n: unexpected operand 'extra'
$l\" sim /nonexistent.ini extra more
   done; rm -f \"$t\"; [ $fail -eq 0 ] && echo help-operand-ok" ${_pvspin})
set_tests_properties(cli_help_operand PROPERTIES PASS_REGULAR_EXPRESSION "help-operand-ok"
                     LABELS sanitize TIMEOUT 60)
# -h / --help anywhere among the options prints the help (exit 0) without
# judging the other options' values (bench, detect, sim, torture and run
# refused a bad value given with it, exit 2, or not, by option; torture
# and run since their own commit); nothing after '--' is
# an option, nor an option's value ('--json --help' names a file).
add_test(NAME cli_help_wins_over_values COMMAND sh -c
  "p=\"$0\"; fail=0
   chk() { w=$1; shift; o=$(\"$p\" \"$@\" 2>/dev/null); r=$?
     case \"$r:$o\" in \"$w\"*) ;; *) echo \"FAIL: $*: exit $r\"; fail=1;; esac; }
   for h in -h --help; do
     chk \"0:usage: pvspin bench \" bench $h --threads 0
     chk \"0:usage: pvspin bench \" bench --locks nope --json '' $h
     chk \"0:usage: pvspin detect \" detect $h --policy nope --interval-ms x
     chk \"0:usage: pvspin sim \" sim $h --seeds 0 --fuzz 0
     chk \"0:usage: pvspin sim \" sim --preset nope --seed -1 $h
     chk \"0:usage: pvspin torture \" torture $h --threads 0 --lock nope
     chk \"0:usage: pvspin torture \" torture --seconds x $h
     chk \"0:usage: pvspin run \" run --spin-limit x --lock bogus $h
     chk 2: bench --threads 0 -- $h
     chk 2: sim --seeds 0 -- $h
     chk 2: torture --threads 0 -- $h
     # after the program, the program's option (true ignores it)
     chk 0: run -- true $h
   done
   chk 2: detect --cpuid --help --policy nope
   [ $fail -eq 0 ] && echo help-wins-ok" ${_pvspin})
set_tests_properties(cli_help_wins_over_values PROPERTIES PASS_REGULAR_EXPRESSION "help-wins-ok"
                     LABELS sanitize)
# a value given to the flags (--version=1, --help=x, --version=) is said
# as the subcommands say it, not "unknown command"
add_test(NAME cli_flag_value COMMAND sh -c
  "for a in --version=1 --help=x --version=; do \"$0\" $a 2>&1 >/dev/null; echo \"exit=$?\"; done"
  ${_pvspin})
set_tests_properties(cli_flag_value PROPERTIES PASS_REGULAR_EXPRESSION
  "^pvspin: option '--version' takes no value\nexit=2\npvspin: option '--help' takes no value\nexit=2\npvspin: option '--version' takes no value\nexit=2\n$"
  LABELS sanitize)
# a word starting with '-' where a command is expected is an option, not a
# command (all said "unknown command '--bogus'"): unknown option, its
# "=VALUE" left out, with the hint, exit 2; after help too, except
# -h / --help, which print the command list (exit 0)
add_test(NAME cli_unknown_option COMMAND sh -c
  "for a in --bogus -V --bogus=1 'help --version'; do \"$0\" $a 2>&1 >/dev/null; echo \"exit=$?\"; done
   for a in -h --help; do \"$0\" help $a 2>&1 | head -1; done" ${_pvspin})
set_tests_properties(cli_unknown_option PROPERTIES PASS_REGULAR_EXPRESSION
  "^pvspin: unknown option '--bogus'\n\\(pvspin --help lists the commands and options\\)\nexit=2\npvspin: unknown option '-V'\n[^\n]*\nexit=2\npvspin: unknown option '--bogus'\n[^\n]*\nexit=2\npvspin help: unknown option '--version'\n[^\n]*\nexit=2\nusage: pvspin COMMAND[^\n]*\nusage: pvspin COMMAND[^\n]*\n$"
  LABELS sanitize)
add_test(NAME cli_help_unknown COMMAND sh -c "\"$0\" help nosuch 2>&1; echo \"exit=$?\"" ${_pvspin})
set_tests_properties(cli_help_unknown PROPERTIES
  PASS_REGULAR_EXPRESSION "^pvspin: unknown command 'nosuch'.*exit=2" LABELS sanitize)

# A bad PVSPIN_LOCK ends `pvspin bench` before it measures anything (exit
# 2, nothing on stdout); `pvspin detect` says when PVSPIN_LOCK overrides
# the policies' picks for programs started from the shell.
add_test(NAME cli_bench_bad_env_early COMMAND sh -c
  "o=$(PVSPIN_LOCK=bogus \"$0\" bench --threads 1 --locks tas --duration-ms 300 2>/dev/null); \
   r=$?; echo \"exit=$r out=[$o]\"; \
   PVSPIN_LOCK=tas \"$0\" detect --interval-ms 0 | tail -1" ${_pvspin})
set_tests_properties(cli_bench_bad_env_early PROPERTIES LABELS sanitize
  PASS_REGULAR_EXPRESSION "exit=2 out=\\[\\]\nPVSPIN_LOCK=tas is set: programs started from here use that kind")
# A PVSPIN_* name pvspin does not read is said (a typo measured the
# default kind in silence), with the nearest known name; not refused
# (exit 0), and a known name (PVSPIN_PRELOAD_LIB) is not said
add_test(NAME cli_env_unknown_name COMMAND sh -c
  "e=$(PVSPIN_LOKC=ticket PVSPIN_PRELOAD_LIB=/nonexistent \"$0\" bench --threads 1 --locks tas \
       --duration-ms 10 --repeat 1 2>&1 >/dev/null); echo \"exit=$? [$e]\"" ${_pvspin})
set_tests_properties(cli_env_unknown_name PROPERTIES LABELS sanitize PASS_REGULAR_EXPRESSION
  "^exit=0 \\[pvspin bench: PVSPIN_LOKC is not a variable pvspin reads \\(ignored\\). did you mean PVSPIN_LOCK\\?\\]\n$")
# ... the name quoted where a blank in it would not show (env can set
# 'PVSPIN_LOCK =tas'; it was said "PVSPIN_LOCK  is not", helper-67)
add_test(NAME cli_env_unknown_name_blank COMMAND sh -c
  "env 'PVSPIN_LOCK =tas' \"$0\" run -- true 2>&1; echo \"exit=$?\"" ${_pvspin})
set_tests_properties(cli_env_unknown_name_blank PROPERTIES LABELS sanitize PASS_REGULAR_EXPRESSION
  "^pvspin run: 'PVSPIN_LOCK ' is not a variable pvspin reads \\(ignored\\). did you mean PVSPIN_LOCK\\?\nexit=0\n$")
# A report given a named pipe reaches the pipe's reader (sim and bench):
# the writability check before the run no longer opens and closes it
add_test(NAME cli_report_fifo COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_report_fifo.sh ${_pvspin})
set_tests_properties(cli_report_fifo PROPERTIES LABELS sanitize TIMEOUT 150
  PASS_REGULAR_EXPRESSION "report-fifo-ok")
# detect's note follows the library's order (pvspin_default_kind()):
# PVSPIN_LOCK wins, bad or valid, even beside a bad PVSPIN_POLICY (a
# program uses the kind); PVSPIN_POLICY only while PVSPIN_LOCK is unset
# or empty; nothing for an empty PVSPIN_POLICY, nor with --policy
add_test(NAME cli_detect_env_note COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_detect_env_note.sh
  ${_pvspin})
set_tests_properties(cli_detect_env_note PROPERTIES LABELS sanitize
  PASS_REGULAR_EXPRESSION "detect-env-note-ok")
# bench and torture refuse a bad PVSPIN_LOCK / PVSPIN_POLICY as `pvspin
# run` does: exit 2, one line prefixed with the subcommand, also where
# --lock or --locks would replace the default kind (torture --lock tas
# used to run on, and bench said "pvspin: ..." from the library)
add_test(NAME cli_kind_env_typo COMMAND sh -c
  "for c in 'bench --threads 1 --locks tas --duration-ms 10 --repeat 1' \
            'torture --lock tas --seconds 1' 'torture --seconds 1'; do \
     for v in PVSPIN_LOCK PVSPIN_POLICY; do \
       e=$(env $v=bogus \"$0\" $c 2>&1 >/dev/null); r=$?; set -- $c; n=\"pvspin $1\"; \
       case $v in PVSPIN_LOCK) w=\"$n: PVSPIN_LOCK=bogus: not a lock kind; valid kinds: qspinlock\";; \
                  *) w=\"$n: PVSPIN_POLICY=bogus: not a policy; valid policies: \";; esac; \
       case \"$r:$e\" in \"2:$w\"*) ;; *) echo \"$v $c: exit $r: '$e'\"; exit 1;; esac; \
     done; done; echo kind-env-ok" ${_pvspin})
set_tests_properties(cli_kind_env_typo PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "kind-env-ok")
# A bad lock or policy name given to an option is said in the shape of
# the same name in PVSPIN_LOCK / PVSPIN_POLICY, "WHO: OPTION VALUE: what
# is wrong; what it takes" (tool_value_error()): run's --lock and --policy
# lines are its PVSPIN_LOCK and PVSPIN_POLICY lines with the option for
# the variable; detect's --policy line too; torture's --lock names its
# kinds, bench's --locks its locks (peers included).  Each command had its
# own words: "unknown lock kind 'x' (valid: ...)", "--locks: unknown lock
# 'x'; valid locks: ...", "unknown lock kind 'x'; valid kinds: ...",
# "policy 'x': not a policy; ...".
add_test(NAME cli_lock_policy_option_value COMMAND sh -c
  "p=\"$0\"; fail=0; t=$(mktemp) || exit 1
   # N lines on stderr (without a sanitizer runtime's), matching the case
   # pattern W (a * in it is a wildcard), after exit 2
   chk() { n=$1; w=$2; shift 2; \"$p\" \"$@\" 2>\"$t\" >/dev/null; r=$?
     e=$(grep -v -e '^==[0-9]*==' -e '^$' \"$t\"); l=$(printf '%s\\n' \"$e\" | wc -l)
     case \"$r:$l:$e\" in 2:$n:$w) ;; *) printf 'FAIL: %s: exit %s: %s\\n' \"$*\" $r \"$e\"; fail=1;; esac; }
   envline() { v=$1; shift; env $v=bogus \"$p\" \"$@\" 2>&1 >/dev/null | grep -v '^==[0-9]*=='; }
   k=$(envline PVSPIN_LOCK run -- true); k=\${k#'pvspin run: PVSPIN_LOCK=bogus: '}
   po=$(envline PVSPIN_POLICY run -- true); po=\${po#'pvspin run: PVSPIN_POLICY=bogus: '}
   case \"$k|$po\" in 'not a lock kind; valid kinds: qspinlock, '*'|not a policy; valid policies: linux, '*) ;;
     *) echo \"FAIL: the environment's lines: $k|$po\"; fail=1;; esac
   chk 1 \"pvspin run: --lock bogus: $k\" run --lock bogus -- true
   chk 1 \"pvspin run: --lock bogus: $k\" run -l bogus -- true
   chk 1 \"pvspin run: --policy bogus: $po\" run --policy bogus -- true
   chk 1 \"pvspin detect: --policy bogus: $po\" detect --policy bogus
   rg='N of threshold=N is a CPU count from 0 to 1000000'
   chk 1 \"pvspin run: --policy threshold=x: $rg\" run --policy threshold=x -- true
   chk 1 \"pvspin detect: --policy threshold=-1: $rg\" detect --policy=threshold=-1
   chk 1 'pvspin torture: --lock bogus: not a lock kind; valid kinds: qspinlock, *, pthread_mutex, *' \\
     torture --lock bogus
   chk 1 'pvspin bench: --locks bogus: not a lock; valid locks: qspinlock, *, pthread_mutex, *' \\
     bench --locks tas,bogus
   rm -f \"$t\"; [ $fail -eq 0 ] && echo option-value-ok" ${_pvspin})
set_tests_properties(cli_lock_policy_option_value PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "option-value-ok")
# A bad value of a number option is said in one shape by every
# subcommand, "WHO: OPTION VALUE: not an integer from LO to HI" (the shape
# of the lock and policy names above, tool_number_error()): one line, no
# "--help lists the options" line (that follows an unknown option or a
# stray operand only), exit 2; an empty value or one with a blank is
# quoted; an item of bench's --threads list is named alone; sim's keys
# say KEY=VALUE in the same words.  They said it in five shapes: "'0' is
# not a valid number (expected an integer from 1 to 1024)" and the hint
# line (bench), "'2000' is not valid: an integer from 1 to 1024"
# (torture), "--interval-ms '-5' is not a number of milliseconds from 0
# to 60000" (detect), "--spin-limit needs a number of PAUSE loops from 0
# to 4294967295, not '-5'" (run), "--seeds needs a seed count from 1 to
# 1000, not '0'" and "bad value '0' for key 'vms'; valid: ..." (sim).
add_test(NAME cli_number_option_value COMMAND sh -c
  "p=\"$0\"; fail=0; t=$(mktemp) || exit 1
   # exit 2 and exactly the line W on stderr (without a sanitizer runtime's)
   chk() { w=$1; shift; \"$p\" \"$@\" 2>\"$t\" >/dev/null; r=$?
     e=$(grep -v -e '^==[0-9]*==' -e '^$' \"$t\")
     [ \"$r:$e\" = \"2:$w\" ] || { printf 'FAIL: %s: exit %s: %s\\n' \"$*\" $r \"$e\"; fail=1; }; }
   chk 'pvspin bench: --repeat 0: not an integer from 1 to 1000' bench --repeat 0
   chk 'pvspin bench: --cs-lines 2000: not an integer from 1 to 1024' bench --cs-lines=2000
   chk 'pvspin bench: --threads 2000: not an integer from 1 to 1024' bench --threads 1,2000,2
   chk \"pvspin bench: --duration-ms '': not an integer from 1 to 3600000\" bench --duration-ms ''
   chk 'pvspin torture: --threads 2000: not an integer from 1 to 1024' torture --threads 2000
   chk 'pvspin torture: --seconds x: not an integer from 1 to 604800' torture --seconds x
   chk 'pvspin detect: --interval-ms -5: not an integer from 0 to 60000' detect --interval-ms -5
   chk 'pvspin run: --spin-limit -5: not an integer from 0 to 4294967295' run --spin-limit -5 -- true
   chk 'pvspin run: --spin-limit 0x10: not an integer from 0 to 4294967295' run -S 0x10 -- true
   chk 'pvspin sim: --seeds 0: not an integer from 1 to 1000' sim --preset smoke --seeds 0
   chk \"pvspin sim: --seeds ' 2': not an integer from 1 to 1000\" sim --preset smoke --seeds ' 2'
   chk 'pvspin sim: --fuzz +5: not an integer from 1 to 1000000' sim --fuzz +5
   chk 'pvspin sim: --seed -1: not an integer from 0 to 18446744073709551615' sim --preset smoke --seed -1
   chk 'pvspin sim: vms=0: not an integer from 1 to 64' sim --preset smoke --set vms=0
   rm -f \"$t\"; [ $fail -eq 0 ] && echo number-option-ok" ${_pvspin})
set_tests_properties(cli_number_option_value PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "number-option-ok")
# A bad switch (PVSPIN_NO_MEMBARRIER, PVSPIN_STATS) is said once, in the
# command's words: bench, torture and run refuse it (exit 2, one line:
# the library's load-time "pvspin: ignoring PVSPIN_NO_MEMBARRIER=..." came
# first), detect and sim say they ignore it and go on.  With several bad
# variables at once, run, bench and torture say each of them.
add_test(NAME cli_switch_env_one_message COMMAND sh -c
  "p=\"$0\"; fail=0; t=$(mktemp) || exit 1
   # stderr without a sanitizer runtime's own lines (ASan warns of sim's
   # swapcontext) and blank lines
   one() { w=$1; shift; env \"$@\" 2>\"$t\" >/dev/null; r=$?
     e=$(grep -v -e '^==[0-9]*==' -e '^$' \"$t\")
     [ \"$r:$e\" = \"$w\" ] || { printf 'FAIL: %s: exit %s: %s\\n' \"$*\" $r \"$e\"; fail=1; }; }
   nm='PVSPIN_NO_MEMBARRIER=banana: expected 1 (no membarrier) or 0 (membarrier)'
   st='PVSPIN_STATS=banana: expected 1 (on) or 0 (off)'
   for c in 'bench --threads 1 --locks tas --duration-ms 10 --repeat 1' \
            'torture --lock tas --seconds 1' 'run -- true'; do
     set -- $c; n=\"pvspin $1\"
     one \"2:$n: $nm\" PVSPIN_NO_MEMBARRIER=banana \"$p\" $c
     one \"2:$n: $st\" PVSPIN_STATS=banana \"$p\" $c
     # all six bad at once: every one said, one line each, in the
     # order of env_check.h, then exit 2 (they were said a group at a
     # time: the tunables, then PVSPIN_LOCK alone, then the switches)
     env PVSPIN_NO_MEMBARRIER=2 PVSPIN_STATS=2 PVSPIN_LOCK=bad PVSPIN_POLICY=bad \\
       PVSPIN_SPIN_THRESHOLD=x PVSPIN_PENDING_LOOPS=y \"$p\" $c 2>\"$t\" >/dev/null; r=$?
     e=$(grep -v -e '^==[0-9]*==' -e '^$' \"$t\")
     x='not a valid value for'; i='(expected a decimal integer from 1 to 4294967295)'
     case \"$r:$(echo \"$e\" | wc -l):$e\" in \"2:6:$n: bad PVSPIN_SPIN_THRESHOLD=x: $x spin_threshold $i
$n: bad PVSPIN_PENDING_LOOPS=y: $x pending_loops $i
$n: PVSPIN_LOCK=bad: not a lock kind; valid kinds: qspinlock, \"*\"
$n: PVSPIN_POLICY=bad: not a policy; valid policies: linux, \"*\"
$n: PVSPIN_STATS=2: expected 1 (on) or 0 (off)
$n: PVSPIN_NO_MEMBARRIER=2: expected 1 (no membarrier) or 0 (membarrier)\") ;;
       *) printf 'FAIL: %s all six bad: exit %s: %s\\n' \"$n\" $r \"$e\"; fail=1;; esac
   done
   one \"0:pvspin detect: ignoring $nm; membarrier is used\" \\
     PVSPIN_NO_MEMBARRIER=banana \"$p\" detect --interval-ms 0
   one \"0:pvspin sim: ignoring $nm; the simulated guests always have membarrier\" \\
     PVSPIN_NO_MEMBARRIER=banana \"$p\" sim --preset smoke --set seconds=0.001
   rm -f \"$t\"; [ $fail -eq 0 ] && echo switch-env-ok" ${_pvspin})
set_tests_properties(cli_switch_env_one_message PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "switch-env-ok")
# detect goes on past a bad PVSPIN_LOCK, PVSPIN_POLICY or PVSPIN_STATS
# (exit 0, its report on stdout) and says it ignores each, one line, as
# it says a bad tunable and PVSPIN_NO_MEMBARRIER, in the order of run's
# refusal (it said nothing of these three); nothing for valid values
add_test(NAME cli_detect_env_ignored COMMAND sh -c
  "p=\"$0\"; fail=0; t=$(mktemp) || exit 1
   # (patterns: a * in a variable's value is a wildcard only where the
   # variable is not quoted)
   d='pvspin detect: ignoring'
   k=\"$d PVSPIN_LOCK=bogus: not a lock kind; valid kinds: qspinlock, *; pvspin detect takes no lock kind from the environment\"
   po=\"$d PVSPIN_POLICY=zzz: not a policy; valid policies: linux, *; pvspin detect takes no policy from the environment (--policy NAME)\"
   st=\"$d PVSPIN_STATS=9: expected 1 (on) or 0 (off); pvspin detect counts no stats\"
   run() { o=$(env \"$@\" \"$p\" detect --interval-ms 0 2>\"$t\"); r=$?
     e=$(grep -v -e '^==[0-9]*==' -e '^$' \"$t\"); n=$(printf '%s' \"$e\" | grep -c .)
     case \"$o\" in *'policy '*'lock '*reason*) ;; *) echo \"FAIL $*: no report\"; fail=1;; esac; }
   run PVSPIN_LOCK=bogus PVSPIN_POLICY=zzz PVSPIN_STATS=9
   w=\"0:3:$k
$po
$st\"
   case \"$r:$n:$e\" in $w) ;; *) printf 'FAIL three: exit %s: %s\\n' $r \"$e\"; fail=1;; esac
   run PVSPIN_NO_MEMBARRIER=2 PVSPIN_STATS=9 PVSPIN_LOCK=bogus PVSPIN_POLICY=zzz \\
     PVSPIN_SPIN_THRESHOLD=x PVSPIN_PENDING_LOOPS=y
   w=\"0:6:$d PVSPIN_SPIN_THRESHOLD=x: *
$d PVSPIN_PENDING_LOOPS=y: *
$k
$po
$st
$d PVSPIN_NO_MEMBARRIER=2: *\"
   case \"$r:$n:$e\" in $w) ;; *) printf 'FAIL six: exit %s: %s\\n' $r \"$e\"; fail=1;; esac
   run PVSPIN_LOCK=tas PVSPIN_POLICY=linux PVSPIN_STATS=1
   [ \"$r:$e\" = 0: ] || { printf 'FAIL valid: exit %s: %s\\n' $r \"$e\"; fail=1; }
   rm -f \"$t\"; [ $fail -eq 0 ] && echo detect-env-ignored-ok" ${_pvspin})
set_tests_properties(cli_detect_env_ignored PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "detect-env-ignored-ok")
# Every option of run, bench, torture, sim and detect that takes one
# value, given twice with two values, is refused in one wording (exit 2,
# tools/pvspin/option_error.h, tool_option_once()): the last one was kept
# without a word (a new user's finding); the same value twice is one
# choice (the script says how each case is checked)
set(_twice sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_given_twice.sh ${_pvspin})
add_test(NAME cli_given_twice_run COMMAND ${_twice} run
  "--lock tas ticket lock kinds" "--policy linux numa policies"
  "--spin-limit 5 9 spin limits")
add_test(NAME cli_given_twice_bench COMMAND ${_twice} bench
  "--locks tas ticket lock lists" "--threads 1 2 thread-count lists"
  "--cs-ns 1 2 critical-section times" "--ncs-ns 1 2 times outside the critical section"
  "--cs-lines 1 2 shared-line counts" "--duration-ms 1 2 cell lengths"
  "--repeat 1 2 repeat counts" "--sample-every 1 2 sampling intervals"
  "--spin-threshold 1 2 spin thresholds" "--hog 0 1 hog counts"
  "--json /tmp/a.json /tmp/b.json JSON reports" "--csv /tmp/a.csv /tmp/b.csv CSV reports"
  "--plot /tmp/a.png /tmp/b.png plots")
add_test(NAME cli_given_twice_torture COMMAND ${_twice} torture
  "--lock tas ticket lock kinds" "--threads 1 2 writer counts" "--seconds 1 2 run times"
  "--long-hold-ms 0 1 long holds" "--seed 1 2 seeds"
  "--stats-interval 0 1 statistics intervals" "--stall-ms 10 20 stall thresholds"
  "--spin-threshold 1 2 spin thresholds")
add_test(NAME cli_given_twice_detect COMMAND ${_twice} detect
  "--cpuid /tmp/a /tmp/b CPUID dumps" "--root /tmp/a /tmp/b roots"
  "--policy linux numa policies" "--interval-ms 1 2 intervals")
set(_twice_tests cli_given_twice_run cli_given_twice_bench cli_given_twice_torture
  cli_given_twice_detect)
if(TARGET pvspin_sim_core)
  add_test(NAME cli_given_twice_sim COMMAND ${_twice} sim
    "--preset smoke twin presets" "--seed 1 2 seeds" "--json /tmp/a.json /tmp/b.json reports"
    "--fuzz 1 2 fuzz run counts" "--seeds 1 2 seed counts")
  list(APPEND _twice_tests cli_given_twice_sim)
endif()
set_tests_properties(${_twice_tests} PROPERTIES LABELS sanitize
  PASS_REGULAR_EXPRESSION "given-twice-ok")
# A bad PVSPIN_LOCK / PVSPIN_POLICY that holds a blank is quoted in every
# command's line, as an option's value is (tool_value_quote()): the line
# of run (the library's, pvspin_default_kind_check_env()), and detect's
# and sim's, which ignore it, said "PVSPIN_LOCK=tas : not a lock kind",
# the blank that made it one hard to see
add_test(NAME cli_kind_env_blank_quoted COMMAND sh -c
  "for c in 'run -- true' 'detect --interval-ms 0' 'sim --list'; do \
     e=$(PVSPIN_LOCK='tas ' PVSPIN_POLICY=' linux' \"$0\" $c 2>&1 >/dev/null | grep PVSPIN_); \
     case \"$e\" in *\"PVSPIN_LOCK='tas ': not a lock kind\"*\"PVSPIN_POLICY=' linux': not a \"*) ;; \
       *) echo \"$c: '$e'\"; exit 1;; esac; done; echo blank-quoted-ok" ${_pvspin})
set_tests_properties(cli_kind_env_blank_quoted PROPERTIES LABELS sanitize
  PASS_REGULAR_EXPRESSION "blank-quoted-ok")
# ... and so are the other PVSPIN_* values the tools refuse or ignore: a
# tunable, PVSPIN_STATS, PVSPIN_NO_MEMBARRIER (run refuses them, sim and
# detect ignore them), PVSPIN_PRELOAD_LIB; each said "VAR=VALUE" bare,
# "PVSPIN_STATS=1 : expected 1 (on) or 0 (off)"
add_test(NAME cli_env_values_blank_quoted COMMAND sh -c
  "e=$(PVSPIN_SPIN_THRESHOLD='5 ' \"$0\" run -- true 2>&1); \
   case \"$e\" in *\"PVSPIN_SPIN_THRESHOLD='5 ': not a valid value\"*) ;; *) echo \"tunable: '$e'\"; exit 1;; esac; \
   e=$(PVSPIN_STATS='1 ' \"$0\" run -- true 2>&1); \
   case \"$e\" in *\"PVSPIN_STATS='1 ': expected\"*) ;; *) echo \"stats: '$e'\"; exit 1;; esac; \
   e=$(PVSPIN_NO_MEMBARRIER=' 1' \"$0\" run -- true 2>&1); \
   case \"$e\" in *\"PVSPIN_NO_MEMBARRIER=' 1': expected\"*) ;; *) echo \"membarrier: '$e'\"; exit 1;; esac; \
   e=$(PVSPIN_PRELOAD_LIB='/no such' \"$0\" run -- true 2>&1); \
   case \"$e\" in *\"PVSPIN_PRELOAD_LIB='/no such': \"*) ;; *) echo \"preload lib: '$e'\"; exit 1;; esac; \
   e=$(PVSPIN_STATS=' ' PVSPIN_MUTEX_SPIN_LIMIT='3 ' \"$0\" sim --list 2>&1 >/dev/null); \
   case \"$e\" in *\"PVSPIN_MUTEX_SPIN_LIMIT='3 ': \"*\"PVSPIN_STATS=' ': \"*) ;; *) echo \"sim: '$e'\"; exit 1;; esac; \
   e=$(PVSPIN_STATS=' ' \"$0\" detect --interval-ms 0 2>&1 >/dev/null); \
   case \"$e\" in *\"PVSPIN_STATS=' ': \"*) ;; *) echo \"detect: '$e'\"; exit 1;; esac; \
   echo env-blank-quoted-ok" ${_pvspin})
set_tests_properties(cli_env_values_blank_quoted PROPERTIES LABELS sanitize
  PASS_REGULAR_EXPRESSION "env-blank-quoted-ok")
