# xio_values: the values a program hands the file layer as text, checked without
# any storage: sizes with binary suffixes (xio_size_parse) and what a target names
# (xio_target_classify) and the URL of a blob of the context's account
# (xio_target_url), a blob URL taken apart and the URL of its snapshots
# (xio_target_parse, xio_target_snapshot_url), the service limits and CRC-64 xio.h
# names, the one zero scanner (xio_is_zero, xio_zero_run), including that a file opened by an unsupported URL scheme
# fails with XIO_EUNSUPPORTED instead of becoming a local path; and what the public
# headers show (no internals, xio_io's layout, the errors they name defined); and
# the metadata the file layer records with a page blob, written and read back, and
# Lease Blob's ranges taken alike by the builder, xio_lease and the context.
xio_add_suite(NAME xio_values
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/size_test.c
    ${CMAKE_CURRENT_LIST_DIR}/target_test.c
    ${CMAKE_CURRENT_LIST_DIR}/target_url_test.c
    ${CMAKE_CURRENT_LIST_DIR}/target_parts_test.c
    ${CMAKE_CURRENT_LIST_DIR}/zeroscan_test.c
    ${CMAKE_CURRENT_LIST_DIR}/header_test.c
    ${CMAKE_CURRENT_LIST_DIR}/blobmeta_test.c
    ${CMAKE_CURRENT_LIST_DIR}/lease_limits_test.c
  LIBS xio)
target_include_directories(test_xio_values PRIVATE ${PROJECT_SOURCE_DIR}/xio)
target_compile_definitions(test_xio_values PRIVATE XIO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
