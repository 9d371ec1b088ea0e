# badinput: more than 200 bad inputs, table-driven, each with the answer it must
# give. The xio program run as a child per row (arguments, environment, credential
# files, faults the proxy of samples/testers/faultproxy answers with instead of the
# service: exit status and a phrase of the message), and the library's parsers
# and file calls fed directly
# (connection strings, SAS tokens, URLs, names, sizes, credential files, context
# options, ranges, XML bodies and headers from the service: xio_err code and
# phrase). No row may crash, print a secret or write anything.
# Also here: the check that a TEST line ctest would not register stops the
# configure step (tests/test_names.cmake), run on the fixtures in names/.
if(TARGET xio_cli)
  include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
  xio_add_suite(NAME badinput AZURITE TIMEOUT 300
    SOURCES
      ${PROJECT_SOURCE_DIR}/tests/samples/cli/clirun.c
      ${CMAKE_CURRENT_LIST_DIR}/fixture.c
      ${CMAKE_CURRENT_LIST_DIR}/cli_table.c
      ${CMAKE_CURRENT_LIST_DIR}/api_table.c
      ${CMAKE_CURRENT_LIST_DIR}/service_table.c
      ${CMAKE_CURRENT_LIST_DIR}/wire_test.c
      ${CMAKE_CURRENT_LIST_DIR}/credfile_mode_test.c
    LIBS xio xio_blob xio_auth xio_faultproxy PkgConfig::CJSON Threads::Threads)
  add_dependencies(test_badinput xio_cli)
  target_compile_definitions(test_badinput PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>")
  # Table rows name only the fields they need; the rest are zero on purpose.
  target_compile_options(test_badinput PRIVATE -Wno-missing-field-initializers)
  # The service table reads bodies and headers with the client's own parsers.
  target_include_directories(test_badinput PRIVATE
    ${PROJECT_SOURCE_DIR}/tests/samples/cli ${PROJECT_SOURCE_DIR}/blobio)
endif()

set(names_dir ${CMAKE_CURRENT_LIST_DIR}/names)
set(names_script ${PROJECT_SOURCE_DIR}/tests/test_names.cmake)
add_test(NAME badinput.test_names_registered
         COMMAND ${CMAKE_COMMAND} -DXIO_TEST_SOURCE=${names_dir}/good.c.txt -P ${names_script})
set_tests_properties(badinput.test_names_registered PROPERTIES
                     PASS_REGULAR_EXPRESSION "test names: alpha_1.beta\n" LABELS badinput)
# CMake wraps a long message at spaces, where the path's length decides: match the
# words with any run of spaces and line breaks between them.
set(unregistered "would[ \n]+not[ \n]+be[ \n]+registered[ \n]+with[ \n]+ctest")
foreach(bad capital indented spaced)
  add_test(NAME badinput.test_name_${bad}_stops_configure
           COMMAND ${CMAKE_COMMAND} -DXIO_TEST_SOURCE=${names_dir}/${bad}.c.txt -P ${names_script})
  set_tests_properties(badinput.test_name_${bad}_stops_configure PROPERTIES
                       PASS_REGULAR_EXPRESSION "${unregistered}" LABELS badinput)
endforeach()
