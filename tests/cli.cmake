# The option-table reader alone (core/gb_optable.c): core only, no cli/.
gb_add_check_test(check_optable check_optable.c LIBS gb_core)

# The command line (cli/): the option tables as the program parses them, and every subcommand's
# --help, man page section and completion against its table. check_cli
# links every cli/ source but main.c.
file(GLOB GB_CLI_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cli/*.c)
list(REMOVE_ITEM GB_CLI_TEST_SOURCES ${CMAKE_SOURCE_DIR}/cli/main.c)
gb_add_check_test(check_cli check_cli.c ${GB_CLI_TEST_SOURCES} LIBS gb_gate gb_reports gb_planner gb_bench gb_monitor gb_store gb_push)
target_include_directories(check_cli PRIVATE ${CMAKE_SOURCE_DIR}/cli)

# The generated man page and bash completion in the build tree (written by
# the gpubench_docs target): the man page renders without a warning, the
# completion script is valid bash and completes commands, options and files.
if(TARGET gpubench_docs)
  find_program(GB_GROFF groff)
  add_test(NAME cli_man_page COMMAND ${CMAKE_COMMAND} -DMAN=${GB_MAN_PAGE} -DGROFF=${GB_GROFF}
           -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/man_check.cmake)
  add_test(NAME cli_bash_completion COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/completion_check.sh
           ${GB_BASH_COMPLETION})
  set_tests_properties(cli_man_page cli_bash_completion PROPERTIES LABELS cpu)
endif()
