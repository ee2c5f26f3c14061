# The Prometheus side (docs/monitoring.md): the exposition format, the
# results export and the Pushgateway client (check_prom), and the monitor's
# HTTP server under abuse (check_monitor: a port in use, an unreadable,
# replaced or truncated results file, 200 concurrent scrapes, clients that
# never read). Loopback addresses only.
gb_add_check_test(check_prom check_prom.c LIBS gb_push ${CMAKE_DL_LIBS})
gb_add_check_test(check_monitor check_monitor.c LIBS gb_monitor)
