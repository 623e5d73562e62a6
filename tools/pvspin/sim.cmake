# `pvspin sim`: execs the pvspin-sim simulator (sim/), built next to pvspin.
target_sources(pvspin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cmd_sim.c)
if(EXISTS ${PROJECT_SOURCE_DIR}/sim/CMakeLists.txt)
  add_dependencies(pvspin pvspin-sim)
endif()
