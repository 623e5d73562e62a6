# check_model.cmake - run one Promela model check and compare with the
# expected outcome (a ctest step of test/torture.cmake).
#
#   cmake -DSPIN=spin -DCC=cc -DMODEL_DIR=dir -DMODEL=name.pml
#         -DMODE=liveness|safety -DEXPECT=pass|fail [-DDEFS="-DNCPU=2;-DROUNDS=3"]
#         -DWORK=dir -P check_model.cmake
#
# liveness: spin -a; cc -DNFAIR=3; pan -a -f   (acceptance cycles under
#           weak fairness: the ltl `live` claim, plus assertions)
# safety:   spin -a; cc -DSAFETY -DNOCLAIM; pan (assertions, invalid end
#           states: a vCPU halted for ever)
# pass = "errors: 0"; fail = at least one error reported (pan.c compiled
# at -O0 for those, -O2 otherwise).
foreach(v SPIN CC MODEL_DIR MODEL MODE EXPECT WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_model.cmake: -D${v}=... missing")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(GLOB models ${MODEL_DIR}/*.pml)
file(COPY ${models} DESTINATION ${WORK})

execute_process(COMMAND ${SPIN} ${DEFS} -a ${MODEL} WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spin -a ${MODEL} failed (${rc}):\n${out}${err}")
endif()

if(MODE STREQUAL "liveness")
  set(ccflags -DNFAIR=3)
  set(panflags -a -f -m200000)
elseif(MODE STREQUAL "safety")
  set(ccflags -DSAFETY -DNOCLAIM)
  set(panflags -m200000)
else()
  message(FATAL_ERROR "check_model.cmake: MODE must be liveness or safety, not '${MODE}'")
endif()
# A model that must be rejected stops at its first counterexample, found
# in milliseconds: compiling pan.c at -O2 (about 2 s) would be most of
# the step's time, -O0 takes 0.4 s.
if(EXPECT STREQUAL "fail")
  set(ccopt -O0)
else()
  set(ccopt -O2)
endif()
execute_process(COMMAND ${CC} ${ccopt} -w ${ccflags} -o pan pan.c WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling pan.c failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ./pan ${panflags} WORKING_DIRECTORY ${WORK} TIMEOUT 850
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT out MATCHES "errors: ([0-9]+)")
  message(FATAL_ERROR "pan printed no error count")
endif()
set(nerr ${CMAKE_MATCH_1})
if(out MATCHES "search depth too small")
  message(FATAL_ERROR "pan: search depth too small, the check is incomplete")
endif()
if(EXPECT STREQUAL "pass" AND NOT nerr EQUAL 0)
  message(FATAL_ERROR "${MODEL} (${MODE}): ${nerr} error(s), expected none")
elseif(EXPECT STREQUAL "fail" AND nerr EQUAL 0)
  message(FATAL_ERROR "${MODEL} (${MODE}): no error found, but this model must be rejected")
endif()
message("${MODEL} (${MODE}): ${nerr} error(s), as expected (${EXPECT})")
