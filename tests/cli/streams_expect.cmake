# Runs one gpubench command and checks its exit status, that stdout holds
# OUT (empty: that stdout is empty) and that stderr holds each text of the
# list ERR.
# -DEXE=... -DARGS=a;b;c -DRC=n -DOUT=text -DERR=text
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if("${OUT}" STREQUAL "")
  if(NOT "${out}" STREQUAL "")
    message(FATAL_ERROR "stdout should be empty, holds:\n${out}")
  endif()
else()
  string(FIND "${out}" "${OUT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "stdout lacks \"${OUT}\":\n${out}")
  endif()
endif()
foreach(text IN LISTS ERR)
  string(FIND "${err}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "stderr lacks \"${text}\":\n${err}")
  endif()
endforeach()
