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
    PASS_REGULAR_EXPRESSION "unknown key 'bogus'; valid keys: vms")
  add_test(NAME sim_cli_bad_value COMMAND pvspin-sim --preset smoke --set lock=mutex)
  set_tests_properties(sim_cli_bad_value PROPERTIES
    PASS_REGULAR_EXPRESSION "bad value 'mutex' for key 'lock'; valid: qspinlock")
  add_test(NAME sim_cli_list COMMAND pvspin sim --list)
  set_tests_properties(sim_cli_list PROPERTIES
    PASS_REGULAR_EXPRESSION "kcbench-no-ple.*ebizzy-boost.*spawn-dedicated")
  add_test(NAME sim_fuzz_short COMMAND pvspin-sim --fuzz 20 --seed 7)
  set_tests_properties(sim_fuzz_short PROPERTIES PASS_REGULAR_EXPRESSION "SUCCESS")
endif()
