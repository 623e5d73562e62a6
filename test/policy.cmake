# Tests of src/policy and `pvspin detect` (issue 3).
pvspin_test(test_policy)
pvspin_test(test_policy_detect)
target_compile_definitions(test_policy_detect PRIVATE
  PVSPIN_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/policy")
