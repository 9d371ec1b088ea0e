# blobio_unit: the pure pieces of libxio_blob that need no service: checksums (and
# both CRC-64 implementations),
# page-range lists, blob properties and listings, the XML response parsers, request
# building and limits, the judging of tries and retry delays, the checks of reads
# against their checksums, and random UUIDs.
xio_add_suite(NAME blobio_unit
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/checksum_test.c
    ${CMAKE_CURRENT_LIST_DIR}/crc64_impl_test.c
    ${CMAKE_CURRENT_LIST_DIR}/ranges_test.c
    ${CMAKE_CURRENT_LIST_DIR}/props_list_test.c
    ${CMAKE_CURRENT_LIST_DIR}/xml_error_test.c
    ${CMAKE_CURRENT_LIST_DIR}/xml_page_list_test.c
    ${CMAKE_CURRENT_LIST_DIR}/xml_blob_list_test.c
    ${CMAKE_CURRENT_LIST_DIR}/xml_container_list_test.c
    ${CMAKE_CURRENT_LIST_DIR}/buildfix.c
    ${CMAKE_CURRENT_LIST_DIR}/build_test.c
    ${CMAKE_CURRENT_LIST_DIR}/build_ops_test.c
    ${CMAKE_CURRENT_LIST_DIR}/classify_test.c
    ${CMAKE_CURRENT_LIST_DIR}/readcheck_test.c
    ${CMAKE_CURRENT_LIST_DIR}/uuid_test.c
    ${CMAKE_CURRENT_LIST_DIR}/pacing_test.c
    ${CMAKE_CURRENT_LIST_DIR}/pacing_sim.c
    ${CMAKE_CURRENT_LIST_DIR}/pacing_sim_test.c
  LIBS xio_blob Threads::Threads OpenSSL::Crypto)
# The parsers and range helpers are internal: their headers live beside the sources.
target_include_directories(test_blobio_unit PRIVATE ${PROJECT_SOURCE_DIR}/blobio)
