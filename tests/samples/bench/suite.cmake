# The benchmark works: xio-bench run with tiny sizes against the test Azurite exits 0,
# writes every row and column of results.csv (and the JSON, markdown and plots), counts
# 2 requests for a clear growth, extrapolates zero-writes past the cap, and skips local
# sizes that do not fit, and counts throttling answers per section behind a throttling
# front (xio-faultproxy). No timing is ever asserted.
if(TARGET xio-bench)
  xio_add_suite(NAME bench AZURITE TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/bench_test.c ${CMAKE_CURRENT_LIST_DIR}/csv.c
    LIBS xio PkgConfig::CJSON)
  target_compile_definitions(test_bench PRIVATE XIO_BENCH_EXE="$<TARGET_FILE:xio-bench>"
    XIO_FAULTPROXY_EXE="$<TARGET_FILE:xio-faultproxy>")
  add_dependencies(test_bench xio-bench xio-faultproxy)
  # The two long runs of the benchmark program count requests, in the normal build:
  # under the sanitizers the library paths they take run in xio_append, xio_pageblob
  # and the rest of this suite.
  foreach(t append_section_counts_requests_per_flush tiny_run_writes_every_row)
    set_property(TEST bench.${t} APPEND PROPERTY LABELS no-asan)
  endforeach()
endif()
