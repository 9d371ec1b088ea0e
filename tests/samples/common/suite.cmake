# The engine example runs on the emulator and on a local directory (it exits non-zero
# on any failure, when a page reads back wrong or when its log costs other than one
# write request per commit), each run in a container or directory of its own: the
# costs are those of a log it creates, so a run must not find an earlier one's files.
if(TARGET xio-engine-example)
  set(dev_key "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
  add_test(NAME samples.engine_example_on_page_blobs
    COMMAND ${XIO_AZURITE_SH} run ${XIO_AZURITE_STATE} sh -c
      "AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${dev_key};BlobEndpoint=$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1;\" exec \"$0\" \"$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/engine-example-$$\""
      $<TARGET_FILE:xio-engine-example>)
  set_tests_properties(samples.engine_example_on_page_blobs PROPERTIES
    FIXTURES_REQUIRED azurite LABELS samples)
  add_test(NAME samples.engine_example_on_local_files
    COMMAND sh -c "d=$(mktemp -d) && \"$0\" \"$d\"; rc=$?; rm -rf \"$d\"; exit $rc"
      $<TARGET_FILE:xio-engine-example>)
  set_tests_properties(samples.engine_example_on_local_files PROPERTIES LABELS samples)
endif()

# What the samples share (samples/common): the formatters and the clock, checked
# without any storage.
if(TARGET xio_samples_common)
  xio_add_suite(NAME samples_common
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/format_test.c
    LIBS xio_samples_common m)
endif()
