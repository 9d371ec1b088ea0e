# Integration tests of the page-blob REST client against Azurite.

# The synchronous one-line operations the tests use (build, send, free one call);
# the library keeps only those programs use.
add_library(xio_blob_sync_test STATIC ${CMAKE_CURRENT_LIST_DIR}/blob_sync_test_util.c)
target_include_directories(xio_blob_sync_test PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(xio_blob_sync_test PUBLIC xio_blob)

xio_add_suite(NAME blobio AZURITE
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/blob_ops_test.c
    ${CMAKE_CURRENT_LIST_DIR}/lease_test.c
    ${CMAKE_CURRENT_LIST_DIR}/auth_test.c
    ${CMAKE_CURRENT_LIST_DIR}/retry_test.c
    ${CMAKE_CURRENT_LIST_DIR}/rcvlowat_test.c
  LIBS xio_blob xio_blob_sync_test)
target_include_directories(test_blobio PRIVATE ${CMAKE_SOURCE_DIR}/blobio)
