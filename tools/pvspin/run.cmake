# `pvspin run`: cmd_run.c.  The interposer it starts programs with is the
# target pvspin_preload (preload/CMakeLists.txt), found next to the
# command at run time; the install libdir is compiled in for the
# installed layout.  libelf (elfutils) reads the interposer's dynamic
# symbols and PT_DYNAMIC to check it before the exec.
include(${PROJECT_SOURCE_DIR}/cmake/deps.cmake)
target_sources(pvspin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cmd_run.c)
pvspin_link_tool_dep(pvspin LIBELF)
target_compile_definitions(pvspin PRIVATE
  PVSPIN_INSTALL_LIBDIR="${CMAKE_INSTALL_LIBDIR}"
  PVSPIN_INSTALL_FULL_LIBDIR="${CMAKE_INSTALL_FULL_LIBDIR}")
