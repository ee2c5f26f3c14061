# Encodings and sizes of every document gpubench writes (issue 52).
gb_add_check_test(check_encodings check_encodings.c LIBS gb_reports)
add_dependencies(check_encodings gpubench)
set_tests_properties(check_encodings PROPERTIES TIMEOUT 600)
