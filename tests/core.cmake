gb_add_check_test(check_csv check_csv.c)
gb_add_check_test(check_results check_results.c)
gb_add_check_test(check_num check_num.c)
gb_add_check_test(check_stats check_stats.c)
# Interrupted campaigns: the results writer killed at random moments (SIGKILL,
# SIGINT) and resumed; prints the counts quoted in docs/reliability.md.
gb_add_check_test(check_interrupt check_interrupt.c)
