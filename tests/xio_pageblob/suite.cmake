# The file layer on page blobs, against Azurite: instant log growth, leases,
# tracing without secrets and without a request left out, logical sizes, request
# splitting.
xio_add_suite(NAME xio_pageblob AZURITE TIMEOUT 180
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../xio_common/xfix.c
    ${CMAKE_CURRENT_LIST_DIR}/../xio_common/leaseclock.c
    ${CMAKE_CURRENT_LIST_DIR}/growth_test.c
    ${CMAKE_CURRENT_LIST_DIR}/lease_test.c
    ${CMAKE_CURRENT_LIST_DIR}/file_test.c
    ${CMAKE_CURRENT_LIST_DIR}/hook_test.c
  LIBS xio Threads::Threads)
target_include_directories(test_xio_pageblob PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../xio_common
                           ${PROJECT_SOURCE_DIR}/xio)
