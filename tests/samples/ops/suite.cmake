# ops: the tools for people who operate database files, run as programs against
# Azurite: xio ls (empty containers, listings longer than one page, leases,
# snapshots), xio cp (a sparse 1 GiB copy checked by an independent reader,
# restore from a snapshot, refusals), xio snapshot list|delete and snapshot diff
# (against the official JS SDK's listPageRangesDiff, diff.js); and xio-bench
# --target measuring a container addressed like any account.
if(TARGET xio_cli AND TARGET xio-bench)
  xio_add_suite(NAME ops AZURITE TIMEOUT 300
    SOURCES
      ${PROJECT_SOURCE_DIR}/tests/samples/cli/clirun.c
      ${CMAKE_CURRENT_LIST_DIR}/ls_test.c
      ${CMAKE_CURRENT_LIST_DIR}/cp_test.c
      ${CMAKE_CURRENT_LIST_DIR}/bench_target_test.c
      ${CMAKE_CURRENT_LIST_DIR}/diff_test.c
    LIBS xio PkgConfig::CJSON)
  target_include_directories(test_ops PRIVATE ${PROJECT_SOURCE_DIR}/tests/samples/cli)
  add_dependencies(test_ops xio_cli xio-bench)
  target_compile_definitions(test_ops PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>"
                                              XIO_BENCH_EXE="$<TARGET_FILE:xio-bench>"
                                              XIO_NODE_MODULES="${XIO_AZURITE_DIR}/node_modules"
                                              XIO_DIFF_JS="${CMAKE_CURRENT_LIST_DIR}/diff.js")
endif()
