# Hostile inputs and unlucky operators (docs/reliability.md, "Held by
# construction"): the commands run as subprocesses.
if(TARGET gpubench)
  gb_add_check_test(check_harden check_harden.c LIBS gb_planner gb_gate)
  add_dependencies(check_harden gpubench)
  set_tests_properties(check_harden PROPERTIES TIMEOUT 600)
endif()
# scripts/lint.sh's Containerfile rules, each on a file that breaks it
add_test(NAME lint_containerfile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/lint/check_containerfile.sh)
set_tests_properties(lint_containerfile PROPERTIES LABELS cpu TIMEOUT 60)
