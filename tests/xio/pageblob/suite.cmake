# The file layer on page blobs, against Azurite: instant log growth, leases,
# tracing without secrets and without a request left out, each refused try traced
# (through the fault proxy, samples/testers/faultproxy), logical sizes, request splitting,
# lease renewals that go ahead of a queue of writes longer than the lease, the
# context's cancel of a write the service holds.
include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
xio_add_suite(NAME xio_pageblob AZURITE TIMEOUT 180
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../common/xfix.c
    ${CMAKE_CURRENT_LIST_DIR}/../common/leaseclock.c
    ${CMAKE_CURRENT_LIST_DIR}/growth_test.c
    ${CMAKE_CURRENT_LIST_DIR}/lease_test.c
    ${CMAKE_CURRENT_LIST_DIR}/file_test.c
    ${CMAKE_CURRENT_LIST_DIR}/hook_test.c
    ${CMAKE_CURRENT_LIST_DIR}/failed_test.c
    ${CMAKE_CURRENT_LIST_DIR}/diff_test.c
    ${CMAKE_CURRENT_LIST_DIR}/lane_test.c
    ${CMAKE_CURRENT_LIST_DIR}/cancel_test.c
    ${CMAKE_CURRENT_LIST_DIR}/zeros_test.c
  LIBS xio xio_faultproxy Threads::Threads)
target_include_directories(test_xio_pageblob PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common
                           ${PROJECT_SOURCE_DIR}/xio)
