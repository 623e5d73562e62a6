# The Debian-packaged libraries of the `pvspin` command and its tests:
# jansson (JSON reports), gsl (quantiles) and libelf (elfutils: `pvspin
# run` reads ELF files), as the imported targets PkgConfig::JANSSON,
# PkgConfig::GSL and PkgConfig::LIBELF.  Imported targets are scoped to
# the directory that creates them, so tools/pvspin/*.cmake and
# test/*.cmake each include this file; the guards make a second include
# in the same directory a no-op.
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()
if(NOT TARGET PkgConfig::GSL)
  pkg_check_modules(GSL REQUIRED IMPORTED_TARGET gsl)
endif()
if(NOT TARGET PkgConfig::LIBELF)
  pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
endif()

# pvspin_link_tool_dep(TARGET PREFIX): link TARGET with the library that
# pkg_check_modules(PREFIX ...) above found (JANSSON, GSL or LIBELF), from
# its static archives (lib<name>.a, which Debian's -dev packages ship:
# libjansson-dev, libgsl-dev, libelf-dev with zlib1g-dev) where
# PVSPIN_STATIC_TOOL_DEPS is on and every archive is found, else from the
# shared library (PkgConfig::PREFIX).  For the `pvspin` command only:
# `pvspin run` starts every program through it, and on this project's
# 2-vCPU development guest (2026-12-06) the loader's mapping and
# relocation of the five shared objects (libjansson, libgsl,
# libgslcblas, libelf, libz) cost about 40 page faults and 1 ms of every
# launch (perf stat -r 200: `pvspin run -- /bin/true` 5.0-5.4 -> 4.3-4.8
# ms, /bin/true alone 1.7 ms); the
# archives add about 210 KB to the binary.  libm stays shared (libc's
# companion).  Tests link the shared libraries.
option(PVSPIN_STATIC_TOOL_DEPS
  "Link the pvspin command with the static archives of jansson, gsl and libelf" ON)
function(pvspin_link_tool_dep target prefix)
  set(archives "")
  set(names "")
  set(shared "")
  if(PVSPIN_STATIC_TOOL_DEPS)
    foreach(name IN LISTS ${prefix}_STATIC_LIBRARIES)
      if(name STREQUAL "m")
        list(APPEND shared m)
        continue()
      endif()
      find_library(PVSPIN_ARCHIVE_${name} NAMES lib${name}.a
        HINTS ${${prefix}_STATIC_LIBRARY_DIRS})
      if(NOT PVSPIN_ARCHIVE_${name})
        message(STATUS "pvspin: no lib${name}.a; linking ${prefix} shared")
        set(archives "")
        break()
      endif()
      list(APPEND archives ${PVSPIN_ARCHIVE_${name}})
      list(APPEND names ${name})
    endforeach()
  endif()
  if(archives)
    target_include_directories(${target} SYSTEM PRIVATE ${${prefix}_INCLUDE_DIRS})
    target_compile_options(${target} PRIVATE ${${prefix}_CFLAGS_OTHER})
    target_link_libraries(${target} PRIVATE ${archives} ${shared})
    # for test preload_run_launch_static_deps
    set_property(GLOBAL APPEND PROPERTY PVSPIN_TOOL_STATIC_DEPS ${names})
  else()
    target_link_libraries(${target} PRIVATE PkgConfig::${prefix})
  endif()
endfunction()
