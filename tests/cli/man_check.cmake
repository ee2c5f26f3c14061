# Checks the generated man page: its sections are there, and groff renders
# it without a warning (-ww) when groff is installed.
# cmake -DMAN=gpubench.1 [-DGROFF=/usr/bin/groff] -P man_check.cmake
if(NOT EXISTS "${MAN}")
  message(FATAL_ERROR "${MAN}: not generated (the gpubench_docs target writes it)")
endif()
file(READ "${MAN}" text)
foreach(want ".TH GPUBENCH 1" ".SH NAME" ".SH SYNOPSIS" ".SH DESCRIPTION" ".SH \"gpubench compare\""
        ".SH \"gpubench run\"" ".SH \"EXIT STATUS\"" ".SH ENVIRONMENT" ".SH FILES")
  string(FIND "${text}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${MAN} lacks ${want}")
  endif()
endforeach()
if(GROFF)
  execute_process(COMMAND ${GROFF} -man -ww -z "${MAN}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "groff -man -ww: exit ${rc}\n${err}")
  endif()
else()
  message(STATUS "groff not installed: the sections only were checked")
endif()
