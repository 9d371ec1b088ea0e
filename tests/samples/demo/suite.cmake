# demo: the create-database experiment (samples/demo) run as the xio-demo program,
# in a reduced size, on the emulator and on local files: the request counts of its
# table (not its timings) and its bad usage.
if(TARGET xio-demo)
  xio_add_suite(NAME demo AZURITE TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/demo_test.c
    LIBS PkgConfig::CJSON)
  add_dependencies(test_demo xio-demo)
  target_compile_definitions(test_demo PRIVATE XIO_DEMO_PATH="$<TARGET_FILE:xio-demo>")
endif()
