gb_add_check_test(check_specs check_specs.c LIBS gb_specs)
gb_add_check_test(check_planner check_planner.c LIBS gb_planner)
gb_add_check_test(check_planner_data check_planner_data.c LIBS gb_planner)
