# `pvspin torture` (tools/pvspin/cmd_torture.c, torture/*): included by
# tools/CMakeLists.txt.  torture_lost_kick.c compiles src/lock/pvqspinlock.c
# a second time (renamed, dropping kicks) and torture_lost_handoff.c
# src/lock/qspinlock_slowpath.h (with a baton-stealing hook): they need the
# src include path, which the pvspin target already has.
target_sources(pvspin PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cmd_torture.c
  ${CMAKE_CURRENT_LIST_DIR}/torture/torture_locks.c
  ${CMAKE_CURRENT_LIST_DIR}/torture/torture_lost_kick.c
  ${CMAKE_CURRENT_LIST_DIR}/torture/torture_lost_handoff.c
  ${CMAKE_CURRENT_LIST_DIR}/torture/torture_inject.c
  ${CMAKE_CURRENT_LIST_DIR}/torture/torture_drain.c
  ${CMAKE_CURRENT_LIST_DIR}/torture/torture_watchdog.c)
