# blobio_fault: the page-blob client against Azurite through an in-process
# fault-injecting proxy (samples/testers/faultproxy/, the same code as the xio-faultproxy
# program): connection resets, responses lost after the service applied the write,
# torn bodies, stalls past the per-try timeout, injected throttling and corrupted
# bodies (sent, and read back: readcheck_test.c); each must be retried to the right
# result, or reported with the right code once the retry budget is spent. And the
# proxy itself holds against slow clients (slowclient_test.c). A cancel cuts a
# stalled try after its grace and sends nothing more (cancel_test.c). https:// to
# the proxy, which speaks plain http, fails after one try (scheme_test.c).
include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
xio_add_suite(NAME blobio_fault AZURITE
  SOURCES
    ${PROJECT_SOURCE_DIR}/tests/blobio/emulator/fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/proxy_fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/recovery_test.c
    ${CMAKE_CURRENT_LIST_DIR}/exhaustion_test.c
    ${CMAKE_CURRENT_LIST_DIR}/semantics_test.c
    ${CMAKE_CURRENT_LIST_DIR}/inflight_test.c
    ${CMAKE_CURRENT_LIST_DIR}/front_test.c
    ${CMAKE_CURRENT_LIST_DIR}/readcheck_test.c
    ${CMAKE_CURRENT_LIST_DIR}/slowclient_test.c
    ${CMAKE_CURRENT_LIST_DIR}/cancel_test.c
    ${CMAKE_CURRENT_LIST_DIR}/scheme_test.c
  LIBS xio_faultproxy xio_blob xio_blob_sync_test Threads::Threads)
target_include_directories(test_blobio_fault PRIVATE
  ${PROJECT_SOURCE_DIR}/tests/blobio/emulator ${PROJECT_SOURCE_DIR}/blobio)
