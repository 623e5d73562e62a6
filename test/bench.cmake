# Tests of `pvspin bench` (tools/pvspin/cmd_bench.c, tools/pvspin/bench/).
# Included by test/CMakeLists.txt.
if(NOT TARGET pvspin)
  return()
endif()
include(${PROJECT_SOURCE_DIR}/cmake/deps.cmake)
set(PVSPIN_BENCH_SRC ${PROJECT_SOURCE_DIR}/tools/pvspin/bench)

# The ck_* peers are in the build exactly when Concurrency Kit's header was
# found (one detection, cmake/ck.cmake, shared with tools/pvspin/bench.cmake);
# without it, asking for one names the missing package.
include(${PROJECT_SOURCE_DIR}/cmake/ck.cmake)
if(PVSPIN_HAVE_CK_SPINLOCK_H)
  add_test(NAME bench_ck_peers COMMAND pvspin bench --help)
  set(_ck_regex "ck_mcs .*ck_ticket .*ck_fas ")
else()
  add_test(NAME bench_ck_peers COMMAND pvspin bench --locks ck_mcs)
  set(_ck_regex "'ck_mcs' is not in this build \\(built without Concurrency Kit, libck-dev\\)")
endif()
set_tests_properties(bench_ck_peers PROPERTIES PASS_REGULAR_EXPRESSION "${_ck_regex}"
                     LABELS sanitize)

# Statistics on known inputs (Jain, max/min, reservoir, GSL percentiles).
pvspin_test(test_bench_stats ${PVSPIN_BENCH_SRC}/stats.c)
target_include_directories(test_bench_stats PRIVATE ${PROJECT_SOURCE_DIR}/tools/pvspin)
target_link_libraries(test_bench_stats PRIVATE PkgConfig::GSL m)

# One cell with real threads: a correct lock passes the mutual-exclusion
# check, a lock without exclusion is caught (skipped under TSan).
pvspin_test(test_bench_runner ${PVSPIN_BENCH_SRC}/runner.c ${PVSPIN_BENCH_SRC}/stats.c
            ${PVSPIN_BENCH_SRC}/workload.c)
target_include_directories(test_bench_runner PRIVATE ${PROJECT_SOURCE_DIR}/tools/pvspin)
target_link_libraries(test_bench_runner PRIVATE PkgConfig::GSL m)

# Bad options exit 2 naming the problem.
add_executable(test_bench_cli test_bench_cli.c)
target_link_libraries(test_bench_cli PRIVATE PkgConfig::CMOCKA)
add_test(NAME test_bench_cli COMMAND test_bench_cli $<TARGET_FILE:pvspin>)

# A short real run (2 locks x 2 thread counts x 3 repeats x 30 ms) and a
# check of its JSON report.
set(PVSPIN_BENCH_JSON ${CMAKE_CURRENT_BINARY_DIR}/bench_run.json)
add_test(NAME bench_run
         COMMAND pvspin bench --duration-ms 30 --threads 1,2
                 --locks qspinlock,pthread_mutex --json ${PVSPIN_BENCH_JSON})
set_tests_properties(bench_run PROPERTIES FIXTURES_SETUP bench_json LABELS sanitize)
add_executable(test_bench_json test_bench_json.c)
target_link_libraries(test_bench_json PRIVATE PkgConfig::JANSSON)
add_test(NAME test_bench_json
         COMMAND test_bench_json ${PVSPIN_BENCH_JSON} qspinlock,pthread_mutex 1,2)
set_tests_properties(test_bench_json PROPERTIES FIXTURES_REQUIRED bench_json LABELS sanitize)
