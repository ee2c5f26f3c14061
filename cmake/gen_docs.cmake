# Writes the man page and the bash completion from the built program's option
# tables (core/gb_optable.h, written by cli/gb_optdoc.c): cmake -DEXE=gpubench -DMAN=gpubench.1
# -DCOMPLETION=gpubench.bash-completion -P gen_docs.cmake. Each file is written
# whole or not at all.
foreach(pair "MAN;--man" "COMPLETION;--completion;bash")
  list(POP_FRONT pair var)
  set(out ${${var}})
  execute_process(COMMAND ${EXE} ${pair} OUTPUT_FILE ${out}.tmp RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(REMOVE ${out}.tmp)
    message(FATAL_ERROR "${EXE} ${pair}: exit ${rc}: ${err}")
  endif()
  file(RENAME ${out}.tmp ${out})
endforeach()
