# Report and plot tests. Rendering needs gnuplot: without it the suites run
# what they can and exit 77, which ctest reports as SKIPPED (CI installs
# gnuplot-nox, so they run in full there).
if(TARGET gb_reports)
  gb_add_check_test(check_plot check_plot.c reportutil.c LIBS gb_reports)
  set_tests_properties(check_plot PROPERTIES SKIP_RETURN_CODE 77)
endif()
if(TARGET gb_reports)
  gb_add_check_test(check_report check_report.c reportutil.c LIBS gb_reports)
  set_tests_properties(check_report PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
if(TARGET gb_reports)
  # plots that fail, an interrupted report, history --plot on a full disk (issue 23, item 6)
  gb_add_check_test(check_plot_fail check_plot_fail.c reportutil.c LIBS gb_reports)
  set_tests_properties(check_plot_fail PROPERTIES TIMEOUT 300)
endif()
