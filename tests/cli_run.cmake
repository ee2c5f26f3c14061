# The run command's front end, no GPU needed: what goes to stdout (data) and
# what to stderr (diagnostics). gb_streams_cli_test(NAME RC OUT ERR ARGS...);
# OUT "" means stdout must be empty; ERR is a list of texts stderr holds.
function(gb_streams_cli_test name rc out err)
  if(NOT TARGET gpubench)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:gpubench> "-DARGS=${ARGN}" -DRC=${rc}
           "-DOUT=${out}" "-DERR=${err}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/streams_expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cpu)
endfunction()
# an unknown benchmark: exit 2, the error and the list of known ones on stderr, nothing on stdout
gb_streams_cli_test(run_cli_unknown_bench 2 ""
                    "gpubench run: unknown benchmark 'nope';membw        device-memory bandwidth" run --bench nope)
# --list is data: stdout
gb_streams_cli_test(run_cli_list 0 "membw " "" run --list)
