# `pvspin detect`: the environment and each policy's pick (JSON via jansson;
# the library itself never links jansson).
include(${PROJECT_SOURCE_DIR}/cmake/deps.cmake)
target_sources(pvspin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cmd_detect.c)
pvspin_link_tool_dep(pvspin JANSSON)
