# A paused writer is fenced: real processes on Azurite. A writer stopped with SIGSTOP
# past its lease, while writes it submitted are queued, is resumed after another
# process took the file over, or after nobody did; everything it had queued or tries
# next fails with XIO_ELEASELOST, checked by a Get Blob over plain libcurl.
xio_add_suite(NAME xio_fence AZURITE TIMEOUT 120
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../common/xfix.c
    ${CMAKE_CURRENT_LIST_DIR}/../common/leaseclock.c
    ${CMAKE_CURRENT_LIST_DIR}/fence_test.c
  LIBS xio PkgConfig::CURL Threads::Threads)
target_include_directories(test_xio_fence PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
