# emulator: `xio emulator start|stop|status` run as a person or a script runs it,
# each test starting its own Azurite through the command (on 127.0.0.1), with the
# official JavaScript SDK (node_modules beside azurite.sh, client.js; pages.js for
# paged page-range listings through the fidelity front) as the client,
# through the fault proxy too; writes past its memory limit over its life
# (memory_test.c); the proxy's fault spec and draw on their own; and the library
# behind the command (xio_emulator.h) used without it (library_test.c).
if(TARGET xio_cli)
  xio_add_suite(NAME emulator TIMEOUT 300
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/emurun.c
      ${CMAKE_CURRENT_LIST_DIR}/emulator_test.c
      ${CMAKE_CURRENT_LIST_DIR}/memory_test.c
      ${CMAKE_CURRENT_LIST_DIR}/rates_test.c
      ${CMAKE_CURRENT_LIST_DIR}/library_test.c
    LIBS xio_faultproxy xio_emulator PkgConfig::CJSON)
  add_dependencies(test_emulator xio_cli xio-demo xio-faultproxy)
  target_compile_definitions(test_emulator PRIVATE
    XIO_CLI_PATH="$<TARGET_FILE:xio_cli>"
    XIO_DEMO_PATH="$<TARGET_FILE:xio-demo>"
    XIO_NODE_MODULES="${XIO_AZURITE_DIR}/node_modules"
    XIO_EMU_CLIENT_JS="${CMAKE_CURRENT_LIST_DIR}/client.js"
    XIO_EMU_PAGES_JS="${CMAKE_CURRENT_LIST_DIR}/pages.js"
    XIO_EMU_AZURITE_SH="${XIO_AZURITE_SH}"
    XIO_EMU_FAULTPROXY="$<TARGET_FILE:xio-faultproxy>")
  # Two runs of one faulted workload compared, in the normal build: under the
  # sanitizers the front's fault paths run in the other fault tests of this suite.
  set_property(TEST emulator.same_seed_same_faults APPEND PROPERTY LABELS no-asan)
endif()

# The sweep of the emulator's store (gc_interval.js beside azurite.sh) on Azurite's own
# stores and collector, in one node process (sweep_test.js): it frees what no blob
# holds and keeps the rest with its bytes, in time proportional to the extents (the
# limit catches Azurite's own sweep, which took 295 s over the test's 20,000).
find_program(XIO_NODE node REQUIRED)
add_test(NAME emulator.a_sweep_frees_what_no_blob_holds_in_one_pass
  COMMAND ${XIO_NODE} --require ${XIO_AZURITE_DIR}/gc_interval.js
    ${CMAKE_CURRENT_LIST_DIR}/sweep_test.js)
set_tests_properties(emulator.a_sweep_frees_what_no_blob_holds_in_one_pass PROPERTIES
  ENVIRONMENT "NODE_PATH=${XIO_AZURITE_DIR}/node_modules;XIO_AZURITE_GC_PROTECT_MS=1000"
  TIMEOUT 60 LABELS "emulator;samples")
