# Integration tests of the page-blob REST client against Azurite.
xio_add_suite(NAME blobio AZURITE
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/blob_ops_test.c
    ${CMAKE_CURRENT_LIST_DIR}/lease_test.c
    ${CMAKE_CURRENT_LIST_DIR}/auth_test.c
    ${CMAKE_CURRENT_LIST_DIR}/retry_test.c
  LIBS xio_blob)
target_include_directories(test_blobio PRIVATE ${CMAKE_SOURCE_DIR}/blobio)
