# gpubench merge (core/gb_merge, cli/cmd_merge.c): fleet results into one file.
gb_add_check_test(check_merge check_merge.c)
if(TARGET gpubench)
  add_dependencies(check_merge gpubench)
endif()
