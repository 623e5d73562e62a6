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
  ${PVSPIN_BENCH_DIR}/plot.c
  ${PVSPIN_BENCH_DIR}/runner.c
  ${PVSPIN_BENCH_DIR}/stats.c
  ${PVSPIN_BENCH_DIR}/workload.c)
target_include_directories(pvspin PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/pvspin)
target_link_libraries(pvspin PRIVATE PkgConfig::JANSSON PkgConfig::GSL m)
if(PVSPIN_HAVE_CK_SPINLOCK_H)
  target_compile_definitions(pvspin PRIVATE PVSPIN_HAVE_CK)
endif()
