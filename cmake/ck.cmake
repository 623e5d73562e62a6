# Concurrency Kit (Debian libck-dev): ck_spinlock.h gives `pvspin bench`
# its ck_* peers (ck_mcs, ck_ticket, ck_fas).  Header-only: nothing to link.
# Included by tools/pvspin/bench.cmake (the peers) and test/bench.cmake
# (the test that the build has them exactly when the header is there), so
# both see one answer: the cache variable PVSPIN_HAVE_CK_SPINLOCK_H.
# Configure with -DPVSPIN_HAVE_CK_SPINLOCK_H=0 to build without them.
include_guard(GLOBAL)
include(CheckIncludeFile)
check_include_file(ck_spinlock.h PVSPIN_HAVE_CK_SPINLOCK_H)
if(NOT PVSPIN_HAVE_CK_SPINLOCK_H)
  message(STATUS "pvspin bench: ck_spinlock.h not found, building without the ck_* peers (apt-get install libck-dev)")
endif()
