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
