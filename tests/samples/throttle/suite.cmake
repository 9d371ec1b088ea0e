# throttle: transfers through a throttle they were not told about. The fault proxy's
# front (in the test's process) throttles each blob far below a standard blob's
# targets, with token buckets of one second and of three; `xio put`, `xio get` and
# 8 KiB random writes on the file API, pacing from the documented targets, must
# learn the limit from its 503s: they finish with the right bytes, and the random
# writes have at most 5% of their tries refused past their first seconds, as the
# front counts them. Not under AddressSanitizer (no-asan): they run in real time
# against the throttle, two minutes that only wait, and the pacer's code runs under
# it in blobio_unit's pacing tests and simulation.
if(TARGET xio_cli)
  include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
  xio_add_suite(NAME throttle AZURITE TIMEOUT 240 LABELS no-asan
    SOURCES
      ${PROJECT_SOURCE_DIR}/tests/samples/cli/clirun.c
      ${PROJECT_SOURCE_DIR}/tests/xio/common/xfix.c
      ${CMAKE_CURRENT_LIST_DIR}/throttle_test.c
    LIBS xio xio_faultproxy PkgConfig::CJSON)
  add_dependencies(test_throttle xio_cli)
  target_compile_definitions(test_throttle PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>")
  target_include_directories(test_throttle PRIVATE ${PROJECT_SOURCE_DIR}/tests/samples/cli
                             ${PROJECT_SOURCE_DIR}/tests/xio/common)
endif()
