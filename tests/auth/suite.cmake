# Unit tests of libxio_auth: Shared Key and SAS signing vectors (fixed requests signed
# with Azurite's dev key), codecs (base64, percent-encoding), clocks, connection
# strings, URLs, redaction, credential store, the error record's reasons. No network,
# no emulator.
xio_add_suite(NAME auth
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_clock.c
    ${CMAKE_CURRENT_LIST_DIR}/test_codec.c
    ${CMAKE_CURRENT_LIST_DIR}/test_pct.c
    ${CMAKE_CURRENT_LIST_DIR}/test_connstr.c
    ${CMAKE_CURRENT_LIST_DIR}/test_url.c
    ${CMAKE_CURRENT_LIST_DIR}/test_url_refuse.c
    ${CMAKE_CURRENT_LIST_DIR}/test_account_url.c
    ${CMAKE_CURRENT_LIST_DIR}/test_redact.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sharedkey.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sas.c
    ${CMAKE_CURRENT_LIST_DIR}/test_credstore.c
    ${CMAKE_CURRENT_LIST_DIR}/test_error.c
  LIBS xio_auth)
