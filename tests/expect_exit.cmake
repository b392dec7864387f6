# Runs PROGRAM with ARGS (a ;-list) and checks its exit status is CODE and its output matches REGEX.
# EMULATOR (a ;-list, empty in a native build) runs a cross-built PROGRAM: qemu-aarch64 and its options.
execute_process(COMMAND ${EMULATOR} ${PROGRAM} ${ARGS} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
if(NOT status STREQUAL "${CODE}")
  message(FATAL_ERROR "exit status ${status}, expected ${CODE}; output:\n${all}")
endif()
if(NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}':\n${all}")
endif()
message(STATUS "exit ${status} as expected; output:\n${all}")
