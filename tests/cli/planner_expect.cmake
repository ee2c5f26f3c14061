# Runs one gpubench command and checks its exit status and that its output
# (stdout + stderr) holds a text. -DEXE=... -DARGS=a;b;c -DRC=n -DEXPECT=text
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}\n${out}\n${err}")
endif()
string(FIND "${out}${err}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "output lacks \"${EXPECT}\":\n${out}\n${err}")
endif()
