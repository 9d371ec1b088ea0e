# blobio_conformance: the response shapes the live service sends (shapes/NAME.http, each
# naming the official SDK recording or service page its facts come from), served by a
# loopback server through the page-blob client, each with the result it must give.
# No emulator: the server is the test's own.
xio_add_suite(NAME blobio_conformance
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/replay.c
    ${CMAKE_CURRENT_LIST_DIR}/conformance_test.c
  LIBS xio_blob xio_blob_sync_test Threads::Threads)
target_compile_definitions(test_blobio_conformance PRIVATE
  XIO_SHAPES_DIR="${CMAKE_CURRENT_LIST_DIR}/shapes")
