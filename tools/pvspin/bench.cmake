# pvspin bench: sources and libraries of the `bench` subcommand (included
# by tools/CMakeLists.txt into the `pvspin` target).  Needs jansson and gsl;
# Concurrency Kit (libck-dev, ck_spinlock.h) adds the ck_* peers if found.
include(${PROJECT_SOURCE_DIR}/cmake/deps.cmake)
include(${PROJECT_SOURCE_DIR}/cmake/ck.cmake)

set(PVSPIN_BENCH_DIR ${CMAKE_CURRENT_SOURCE_DIR}/pvspin/bench)
target_sources(pvspin PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/pvspin/cmd_bench.c
  ${PVSPIN_BENCH_DIR}/hog.c
  ${PVSPIN_BENCH_DIR}/machine.c
  ${PVSPIN_BENCH_DIR}/output.c
  ${PVSPIN_BENCH_DIR}/peers.c
  ${PVSPIN_BENCH_DIR}/placement.c
  ${PVSPIN_BENCH_DIR}/plot.c
  ${PVSPIN_BENCH_DIR}/runner.c
  ${PVSPIN_BENCH_DIR}/stats.c
  ${PVSPIN_BENCH_DIR}/workload.c)
target_include_directories(pvspin PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pvspin)
pvspin_link_tool_dep(pvspin JANSSON)
pvspin_link_tool_dep(pvspin GSL)
target_link_libraries(pvspin PRIVATE m)
if(PVSPIN_HAVE_CK_SPINLOCK_H)
  target_compile_definitions(pvspin PRIVATE PVSPIN_HAVE_CK)
endif()

# A/B builds only (tools/pvspin/bench/ab_build.sh): a directory of another
# revision's spinpark, renamed, measured as the lock `spinpark_base`.
set(PVSPIN_BENCH_AB_DIR "" CACHE PATH
  "A/B builds: renamed spinpark sources of another revision (ab_build.sh)")
if(PVSPIN_BENCH_AB_DIR)
  target_sources(pvspin PRIVATE
    ${PVSPIN_BENCH_DIR}/peer_ab.c
    ${PVSPIN_BENCH_AB_DIR}/spinpark_base.c
    ${PVSPIN_BENCH_AB_DIR}/spinpark_base_side.c)
  if(EXISTS ${PVSPIN_BENCH_AB_DIR}/spinpark_base_slice.c)
    target_sources(pvspin PRIVATE ${PVSPIN_BENCH_AB_DIR}/spinpark_base_slice.c)
  endif()
  target_include_directories(pvspin PRIVATE ${PVSPIN_BENCH_AB_DIR})
  target_compile_definitions(pvspin PRIVATE PVSPIN_BENCH_AB)
endif()
