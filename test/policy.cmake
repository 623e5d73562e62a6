# Tests of src/policy and `pvspin detect` (issue 3).
pvspin_test(test_policy)
pvspin_test(test_policy_detect)
target_compile_definitions(test_policy_detect PRIVATE
  PVSPIN_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/policy")

# `pvspin detect` end to end: a small jansson checker runs the command and
# checks the JSON shape, chosen values, or exit status and error message.
include(${PROJECT_SOURCE_DIR}/cmake/deps.cmake)
add_executable(test_policy_json test_policy_json.c)
target_link_libraries(test_policy_json PRIVATE PkgConfig::JANSSON)
set(PD ${CMAKE_CURRENT_SOURCE_DIR}/data/policy)
set(PVSPIN_DETECT_CHECKS
  # this machine, live
  "live|--|detect|--json|--interval-ms|50"
  # the seed case: REALTIME set, PV_UNHALT clear
  "seed|--expect|choices.linux.lock=qspinlock|--expect|choices.linux-pre-2025.lock=tas|--expect|hypervisor.hints.REALTIME=true|--expect|hypervisor.features.PV_UNHALT=false|--|detect|--json|--cpuid|${PD}/cpuid/kvm-realtime-nounhalt.txt|--root|${PD}/root-v1-quota|--interval-ms|0"
  # KVM behind Hyper-V enlightenments
  "hyperv_kvm|--expect|hypervisor.base_leaf=0x40000100|--expect|hypervisor.signature=Microsoft Hv|--expect|choices.linux.lock=pvqspinlock|--|detect|--json|--cpuid|${PD}/cpuid/hyperv-kvm.txt|--root|${PD}/root-nothing-known|--interval-ms|0"
  # unknown signature verbatim, non-KVM: unfair lock
  "unknown_sig|--expect|hypervisor.name=unknown|--expect|hypervisor.signature=Pv\\x01spin\"\\\\H\\x7f|--expect|choices.linux.lock=tas|--|detect|--json|--cpuid|${PD}/cpuid/unknown.txt|--root|${PD}/root-nothing-known|--interval-ms|0"
  # fake tree: quota, nodes, nopvspin; one policy
  "root_v2|--choices|1|--expect|cpu_quota=1.5|--expect|numa_nodes=2|--expect|cpus_possible=8|--expect|choices.pvspin.lock=spinpark|--|detect|--json|--policy|pvspin|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-v2-quota|--interval-ms|0"
  "threshold_param|--choices|1|--expect|choices.threshold.param=16|--expect|choices.threshold.lock=tas|--|detect|--json|--policy|threshold=16|--cpuid|${PD}/cpuid/this-machine.txt|--root|${PD}/root-v1-quota|--interval-ms|0"
  # bad input
  "bad_option|--exit|2|--stderr-has|unknown option '--bogus'|--|detect|--bogus"
  "bad_policy|--exit|2|--stderr-has|valid policies: linux|--|detect|--policy|fastest"
  # threshold=N out of range names the range, not "unknown policy"
  "bad_threshold|--exit|2|--stderr-has|pvspin detect: --policy threshold=4294967296: N of threshold=N is a CPU count from 0 to 1000000|--|detect|--policy|threshold=4294967296"
  "bad_interval|--exit|2|--stderr-has|--interval-ms|--|detect|--interval-ms|-5"
  # a missing or non-directory --root is bad input (1, with strerror), like
  # --cpuid; a --root without its value is bad usage (2)
  "missing_root|--exit|1|--stderr-has|--root ${PD}/nonexistent: No such file or directory|--|detect|--root|${PD}/nonexistent"
  "file_root|--exit|1|--stderr-has|--root ${PD}/cpuid/baremetal.txt: Not a directory|--|detect|--root|${PD}/cpuid/baremetal.txt"
  "root_no_value|--exit|2|--stderr-has|option '--root' needs a value|--|detect|--root"
  # a root with none of the files detect reads (an empty or wrong
  # directory) is bad input too (1, naming them), with --cpuid and --json
  # as well: its every fact would be assumed
  "empty_root|--exit|1|--stderr-has|--root ${PD}/root-empty: none of the files detect reads is there (sys/devices/system/cpu/online, |--|detect|--root|${PD}/root-empty"
  "empty_root_json|--exit|1|--stderr-has|): not a copy of a machine's /proc and /sys|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-empty|--interval-ms|0"
  "bad_cpuid|--exit|1|--stderr-has|malformed.txt:4: malformed CPUID line|--|detect|--cpuid|${PD}/cpuid/malformed.txt"
  # a dump without leaf 1: the hypervisor bit is unknown, an error (not "bare metal")
  "no_leaf1|--exit|1|--stderr-has|no-leaf1.txt: no leaf 0x00000001|--|detect|--cpuid|${PD}/cpuid/no-leaf1.txt|--interval-ms|0"
  "no_leaf1_json|--exit|1|--stderr-has|no-leaf1.txt: no leaf 0x00000001|--|detect|--json|--cpuid|${PD}/cpuid/no-leaf1.txt|--interval-ms|0"
  "no_features_leaf|--exit|1|--stderr-has|kvm-no-features-leaf.txt: leaf 0x40000000 (KVM) goes up to 0x40000001, but there is no leaf 0x40000001|--|detect|--cpuid|${PD}/cpuid/kvm-no-features-leaf.txt|--interval-ms|0"
  "no_signature_leaf|--exit|1|--stderr-has|hv-no-signature-leaf.txt: leaf 0x00000001 has the hypervisor bit set, but there is no leaf 0x40000000|--|detect|--cpuid|${PD}/cpuid/hv-no-signature-leaf.txt|--interval-ms|0"
  "repeated_leaf|--exit|1|--stderr-has|repeated-leaf.txt:5: leaf 0x40000000 subleaf 0x00 repeated (first given on line 3)|--|detect|--cpuid|${PD}/cpuid/repeated-leaf.txt"
  # where the facts come from: CPUID from the dump, the rest from --root or
  # (null) this machine
  "sources_mixed|--expect|sources.root=null|--expect|sources.cpuid=${PD}/cpuid/baremetal.txt|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--interval-ms|0"
  "sources_root|--expect|sources.root=${PD}/root-nothing-known|--expect|choices.pvspin.reason=pvspin: bare metal, unknown CPUs, not overcommitted: threads can still outnumber CPUs|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-nothing-known|--interval-ms|0"
  # an unparsable cpu.max: the quota is not known, the error names it
  "bad_quota|--expect|cpu_quota=null|--expect|cpu_quota_known=false|--expect|cpu_quota_error=${PD}/root-bad-quota/sys/fs/cgroup/app/cpu.max: '100'|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-bad-quota|--interval-ms|0"
  "good_quota_no_error|--expect|cpu_quota_known=true|--expect|cpu_quota_error=null|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-v2-quota|--interval-ms|0"
  # a "cpu" line of proc/stat that is not well-formed (fewer than the eight
  # fields up to steal, or a field that is not a number): steal unknown
  # (null), not a made-up 0
  "stat_few_fields|--expect|steal_pct=null|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-stat-few-fields|--interval-ms|0"
  "stat_not_number|--expect|steal_pct=null|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-stat-not-number|--interval-ms|0"
  "online_garbage|--expect|cpus_online=null|--expect|cpus_possible=8|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-online-garbage|--interval-ms|0"
  # Cpus_allowed_list on the first line of proc/self/status
  "status_first_line|--expect|cpus_allowed=3|--|detect|--json|--cpuid|${PD}/cpuid/baremetal.txt|--root|${PD}/root-status-first|--interval-ms|0"
)
foreach(check ${PVSPIN_DETECT_CHECKS})
  string(REPLACE "|" ";" args "${check}")
  list(POP_FRONT args name)
  list(FIND args "--" dd)
  math(EXPR cmdpos "${dd} + 1")
  list(INSERT args ${cmdpos} $<TARGET_FILE:pvspin>)
  add_test(NAME policy_detect_${name} COMMAND test_policy_json ${args})
  set_tests_properties(policy_detect_${name} PROPERTIES LABELS sanitize)
endforeach()

# the text output and the errors that are not JSON (policy_detect_text.sh)
add_test(NAME policy_detect_text
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/policy_detect_text.sh $<TARGET_FILE:pvspin> ${PD})
set_tests_properties(policy_detect_text PROPERTIES LABELS sanitize TIMEOUT 120)

# where the facts come from with --root alone, and which steal figure the
# picks use (policy_detect_sources.sh, issue 12)
add_test(NAME policy_detect_sources
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/policy_detect_sources.sh $<TARGET_FILE:pvspin> ${PD})
set_tests_properties(policy_detect_sources PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "detect-sources-ok")

# A line is read up to its bound, never whole: --cpuid /dev/zero (one
# endless line) grew getline's buffer to 6.8 GB in 10 s; it is refused at
# once naming the line, from a file and from stdin (the bounded reader,
# src/util/line_read.h, shared with pvspin sim's INI scenarios)
add_test(NAME policy_detect_cpuid_dev_zero COMMAND sh -c
  "for a in /dev/zero -; do e=$(timeout 20 \"$0\" detect --cpuid $a --interval-ms 0 </dev/zero 2>&1 >/dev/null); \
     echo \"exit=$? $e\"; done" $<TARGET_FILE:pvspin>)
set_tests_properties(policy_detect_cpuid_dev_zero PROPERTIES LABELS sanitize TIMEOUT 60
  PASS_REGULAR_EXPRESSION "^exit=1 pvspin detect: --cpuid /dev/zero:1: line longer than 255 characters\nexit=1 pvspin detect: --cpuid <stdin>:1: line longer than 255 characters\n$")
