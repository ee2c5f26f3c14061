# The gate's inputs as hostile as files (issue 52): units and self-baselines,
# through gpubench compare on files and on a store.
gb_add_check_test(check_gate_units check_gate_units.c)
add_dependencies(check_gate_units gpubench)
