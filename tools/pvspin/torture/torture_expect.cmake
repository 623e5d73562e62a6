# torture_expect.cmake - run `pvspin torture` and check both its exit status
# and its last line (ctest runner of test/torture.cmake).
#
#   cmake -DPVSPIN=path/to/pvspin -DARGS="--lock;busted;..."
#         -DEXPECT=SUCCESS|FAILURE|USAGE [-DTIMEOUT=seconds] -P torture_expect.cmake
#
# SUCCESS: exit status 0 and last line "SUCCESS"; FAILURE: exit status 1
# (not a crash, not a timeout) and last line "FAILURE"; USAGE: exit status
# 2 and an error on stderr that lists the valid choices ("valid: ", or
# "valid kinds: " for --lock), or a number's range ("not an integer from
# 1 to 1024"), the usage, or points to it ("--help lists the options").
foreach(v PVSPIN ARGS EXPECT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "torture_expect.cmake: -D${v}=... missing")
  endif()
endforeach()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 100)   # seconds; a hung run fails instead of lingering
endif()
execute_process(COMMAND ${PVSPIN} torture ${ARGS} TIMEOUT ${TIMEOUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(EXPECT STREQUAL "USAGE")
  if(NOT rc STREQUAL "2" OR NOT err MATCHES "valid( kinds)?: |not an integer from [0-9]+ to [0-9]+\n|usage: |--help lists the options")
    message(FATAL_ERROR "pvspin torture ${ARGS}: exit status '${rc}'; expected 2 and "
                        "an error listing the valid choices")
  endif()
  return()
endif()
string(STRIP "${out}" out)
string(REGEX MATCH "[^\n]*$" last "${out}")
if(EXPECT STREQUAL "SUCCESS")
  set(want_rc 0)
elseif(EXPECT STREQUAL "FAILURE")
  set(want_rc 1)
else()
  message(FATAL_ERROR "torture_expect.cmake: EXPECT must be SUCCESS, FAILURE or USAGE")
endif()
if(NOT rc STREQUAL "${want_rc}" OR NOT last STREQUAL EXPECT)
  message(FATAL_ERROR "pvspin torture ${ARGS}: exit status '${rc}', last line '${last}'; "
                      "expected ${want_rc} and ${EXPECT}")
endif()
