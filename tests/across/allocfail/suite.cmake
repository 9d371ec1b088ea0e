# allocfail: the allocation-failure test mode. The N-th allocation fails, for
# N = 1, 2, 3, ... until an operation completes without a failure injected: xio's own
# allocations and libcurl's, libxml2's and cJSON's (all through xio's allocator, see
# failalloc.h). Scenarios: parsing credentials, building and signing each request
# type, reading response bodies, a page blob's open/write/read/grow/zero/close on
# Azurite, the trace sink, a managed identity token fetched through an engine from a
# stand-in endpoint, and the command line's put and get of a small file (run
# in-process). Each run must end in XIO_OK or a clean XIO_ENOMEM with nothing leaked
# or half-written. Runs in the ASan build too, where LeakSanitizer checks again.

# The command line's sources, built again with main() renamed so that the test can
# run commands in its own process, under its own allocator (only where the samples
# are built).
set(ALLOCFAIL_CLI_TEST "")
if(TARGET xio_cli)
  file(GLOB ALLOCFAIL_CLI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/samples/xio/*.c)
  add_library(allocfail_cli OBJECT ${ALLOCFAIL_CLI_SOURCES})
  target_compile_definitions(allocfail_cli PRIVATE main=allocfail_cli_main
                             XIO_CLI_VERSION="${PROJECT_VERSION}"
                             XIO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  set_source_files_properties(${PROJECT_SOURCE_DIR}/samples/xio/main.c TARGET_DIRECTORY
                              allocfail_cli PROPERTIES COMPILE_OPTIONS -Wno-missing-prototypes)
  target_link_libraries(allocfail_cli PRIVATE xio_backup xio_samples_common
                        xio_emulator xio xio_auth PkgConfig::CJSON)
  set(ALLOCFAIL_CLI_TEST ${CMAKE_CURRENT_LIST_DIR}/cli_test.c)
endif()

xio_add_suite(NAME allocfail AZURITE TIMEOUT 300
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/failalloc.c
    ${CMAKE_CURRENT_LIST_DIR}/creds_test.c
    ${CMAKE_CURRENT_LIST_DIR}/sign_test.c
    ${CMAKE_CURRENT_LIST_DIR}/pageblob_test.c
    ${CMAKE_CURRENT_LIST_DIR}/trace_test.c
    ${CMAKE_CURRENT_LIST_DIR}/token_test.c
    ${PROJECT_SOURCE_DIR}/tests/xio/entra/standin.c
    ${ALLOCFAIL_CLI_TEST}
    ${PROJECT_SOURCE_DIR}/tests/xio/common/xfix.c
  LIBS xio xio_blob PkgConfig::CJSON PkgConfig::CURL LibXml2::LibXml2 OpenSSL::SSL
       Threads::Threads)
target_include_directories(test_allocfail PRIVATE ${PROJECT_SOURCE_DIR}/blobio
                           ${PROJECT_SOURCE_DIR}/tests/xio/common ${PROJECT_SOURCE_DIR}/tests/xio/entra)
# standin.c names the directory of the stand-in `az` (not run here).
target_compile_definitions(test_allocfail PRIVATE
                           XIO_TEST_AZ_DIR="${PROJECT_SOURCE_DIR}/tests/xio/entra")
if(TARGET allocfail_cli)
  target_sources(test_allocfail PRIVATE $<TARGET_OBJECTS:allocfail_cli>)
  target_link_libraries(test_allocfail PRIVATE xio_backup xio_samples_common
                        xio_emulator)
endif()
target_link_options(test_allocfail PRIVATE -rdynamic)

# Every allocation in the libraries and the command line goes through the seam: a
# bare malloc/calloc/realloc/strdup/free there fails this test, naming the line.
add_test(NAME allocfail.no_bare_allocations
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/bare_alloc.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(allocfail.no_bare_allocations PROPERTIES LABELS allocfail)
