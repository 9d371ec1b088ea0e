# The xio command line, run as a program the way a person or a script runs it:
# every command against Azurite and on local files, exit statuses, messages and
# hints, --json output, traces, no secret in any output, the partial files and
# modes of local files, and the sparse put/get
# round trip of a 1 GiB file, and the request counts of fragmented and mostly
# empty files both ways; and addresses that fail at once (the wrong scheme for the
# port, a host name that does not resolve, a URL typed without its scheme).
if(TARGET xio_cli)
  include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
  xio_add_suite(NAME cli AZURITE TIMEOUT 300
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/clirun.c
      ${CMAKE_CURRENT_LIST_DIR}/cliproxy.c
      ${CMAKE_CURRENT_LIST_DIR}/usage_test.c
      ${CMAKE_CURRENT_LIST_DIR}/blob_test.c
      ${CMAKE_CURRENT_LIST_DIR}/lease_sas_test.c
      ${CMAKE_CURRENT_LIST_DIR}/error_test.c
      ${CMAKE_CURRENT_LIST_DIR}/transfer_test.c
      ${CMAKE_CURRENT_LIST_DIR}/fragment_test.c
      ${CMAKE_CURRENT_LIST_DIR}/direct_test.c
      ${CMAKE_CURRENT_LIST_DIR}/overwrite_test.c
      ${CMAKE_CURRENT_LIST_DIR}/interrupt_test.c
      ${CMAKE_CURRENT_LIST_DIR}/consistency_test.c
      ${CMAKE_CURRENT_LIST_DIR}/changed_test.c
      ${CMAKE_CURRENT_LIST_DIR}/localdir_test.c
      ${CMAKE_CURRENT_LIST_DIR}/atfile_test.c
      ${CMAKE_CURRENT_LIST_DIR}/resume_local_test.c
      ${CMAKE_CURRENT_LIST_DIR}/partial_test.c
      ${CMAKE_CURRENT_LIST_DIR}/resume_mark_test.c
      ${CMAKE_CURRENT_LIST_DIR}/local_test.c
      ${CMAKE_CURRENT_LIST_DIR}/url_refuse_test.c
      ${CMAKE_CURRENT_LIST_DIR}/credfile_mode_test.c
      ${CMAKE_CURRENT_LIST_DIR}/readcheck_test.c
      ${CMAKE_CURRENT_LIST_DIR}/dryrun_test.c
      ${CMAKE_CURRENT_LIST_DIR}/conventions_test.c
      ${CMAKE_CURRENT_LIST_DIR}/transport_test.c
    LIBS xio xio_faultproxy PkgConfig::CJSON)
  add_dependencies(test_cli xio_cli)
  target_compile_definitions(test_cli PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>")
endif()

# What `cmake --install` puts beside xio for shells and man, made from its help and
# the tables its parser uses: bash and zsh completion, the xio(1) man page.
if(TARGET xio_cli)
  add_test(NAME cli.completion_and_man_page_are_installed
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/shell_test.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(cli.completion_and_man_page_are_installed PROPERTIES
                       LABELS "cli;samples;no-asan" TIMEOUT 120)
endif()

# The command line's hints follow an error's code and reason, never words found in
# its message: no strstr on a message anywhere under samples/ (a reworded message
# from libcurl or the library must not change what people are told).
add_test(NAME cli.hints_never_read_messages
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/message_match.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.hints_never_read_messages PROPERTIES LABELS cli)

# put's read-ahead ring (samples/xio/source.c, its memory from hugemem.c) on its own,
# on a local file: offsets around the ring and its end, its mapping, O_DIRECT and
# buffered reads, a shrinking file.
if(TARGET xio_cli)
  xio_add_suite(NAME cli_source
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/source_test.c
      ${PROJECT_SOURCE_DIR}/samples/xio/source.c
      ${PROJECT_SOURCE_DIR}/samples/xio/hugemem.c
    LIBS xio PkgConfig::CJSON)
  target_include_directories(test_cli_source PRIVATE ${PROJECT_SOURCE_DIR}/samples/xio
                             ${PROJECT_SOURCE_DIR}/samples/common)
endif()
