# The nbdkit plugin (samples/engines/nbdkit): its zero rule on buffers (nbdkit_zeroscan), and
# the plugin itself in a real nbdkit against the test Azurite with the stock NBD tools
# (nbdkit.CASE: nbdkit_test.sh, its cases in cases.sh, the nbd_probe client). Built
# where nbdkit-plugin-dev is found (make deps installs it).
#
# The nbdkit cases are labeled no-asan: the plugin is loaded by the system's nbdkit,
# which is not built with AddressSanitizer, so an ASan plugin needs the ASan runtime
# preloaded into nbdkit and the other tools; nbdkit so preloaded hung at exit. The
# zero rule, the plugin's only logic that is not a call into xio, runs under ASan in
# nbdkit_zeroscan.
if(TARGET xio_nbdkit)
  xio_add_suite(NAME nbdkit_zeroscan
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/zeroscan_test.c
    LIBS xio_nbd_zeroscan)

  pkg_check_modules(LIBNBD REQUIRED IMPORTED_TARGET libnbd)
  add_executable(nbd_probe ${CMAKE_CURRENT_LIST_DIR}/nbd_probe.c)
  target_link_libraries(nbd_probe PRIVATE PkgConfig::LIBNBD)

  # CASE -> seconds it may take on a quiet machine; make test beside other work takes
  # several times longer (counts: 7 s alone, up to a minute on a loaded machine), so the
  # limit is four times that: it only catches a hang.
  set(nbdkit_cases map 60 copy 120 counts 60 mkfs 120 exclusive 90 faults 180 postgres 180
    flush 90 run 300 sas 90)
  while(nbdkit_cases)
    list(POP_FRONT nbdkit_cases name timeout)
    math(EXPR timeout "${timeout} * 4")
    add_test(NAME nbdkit.${name}
      COMMAND ${XIO_AZURITE_SH} run ${XIO_AZURITE_STATE}
        ${CMAKE_CURRENT_LIST_DIR}/nbdkit_test.sh ${name} $<TARGET_FILE:xio_nbdkit>
        $<TARGET_FILE:nbd_probe> $<TARGET_FILE:xio-faultproxy> $<TARGET_FILE:xio_cli>)
    set_tests_properties(nbdkit.${name} PROPERTIES FIXTURES_REQUIRED azurite
      LABELS "nbdkit;no-asan" SKIP_RETURN_CODE 77 TIMEOUT ${timeout}
      ENVIRONMENT "XIO_IMDS_ENDPOINT=http://127.0.0.1:9/metadata/identity/oauth2/token;XIO_DMI_ASSET_TAG_FILE=/nonexistent/chassis_asset_tag")
  endwhile()
endif()
