# The documentation kept honest: its examples run, its figures are the programs' output.

# docs/planner.md's calibration table is check_planner_calibration's current output through
# tests/calibration/table.awk, not hand-edited (scripts/check-calibration-table.sh BUILD --write
# regenerates it)
add_test(NAME doc_calibration_table COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/check-calibration-table.sh ${CMAKE_BINARY_DIR})
set_tests_properties(doc_calibration_table PROPERTIES LABELS cpu)
add_test(NAME doc_calibration_table_failing_check
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/calibration_table_failing_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(doc_calibration_table_failing_check PROPERTIES LABELS cpu DEPENDS doc_calibration_table)

if(TARGET gpubench)
  # scripts/check-doc-examples.sh (CI: .ci/run runs it on README.md and docs/*.md) on a fixture:
  # a good command passes, a bad one fails, a GPU one is skipped with its reason
  add_test(NAME check_doc_examples_selftest COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_doc_examples_selftest.sh
           ${CMAKE_SOURCE_DIR} $<TARGET_FILE:gpubench>)
  set_tests_properties(check_doc_examples_selftest PROPERTIES LABELS cpu)
endif()

if(TARGET gpubench)
  # the walkthrough of docs/planner.md (8 x H200 bought or 64 x H100 rented for a 70B fine-tune):
  # its commands run with the exit status they say, and every output line and bold figure it
  # quotes is in their output
  add_test(NAME doc_examples_planner COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/doc_examples_planner.sh
           ${CMAKE_SOURCE_DIR} $<TARGET_FILE:gpubench>)
  set_tests_properties(doc_examples_planner PROPERTIES LABELS cpu)
endif()
