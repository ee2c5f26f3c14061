# The house rules (docs/architecture.md), checked on the sources: no file over
# 800 lines, no function over 100, no include cycle, no metric, unit, STREAM
# kernel constant or element size written twice, no "issue N" note in product
# code. Files of other helpers still over a limit are named in the script's
# allow-list, which only shrinks.
add_test(NAME check_house COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_house.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(check_house PROPERTIES LABELS cpu)
# ... and the check itself fails on a tree with one offender of each kind
add_test(NAME check_house_selftest COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_house_selftest.sh)
set_tests_properties(check_house_selftest PROPERTIES LABELS cpu)
