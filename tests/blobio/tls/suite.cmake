# TLS against the emulator serving HTTPS with a certificate from a private CA made at
# test time (the azurite_tls fixture): the page-blob client, the file layer and the
# xio command line trust that CA when told to (ca_file, XIO_CA_BUNDLE, --cacert) and
# refuse, once and with the certificate named, when not; a certificate for another
# host name is refused too (an in-process TLS server presents one). An engine parses
# its CA files once and resumes TLS sessions on every connection after its first; the
# system bundle is parsed only when a chain needs it (SSL_CERT_FILE / SSL_CERT_DIR).
# Reads of every size over connections that read ahead finish in their first try, and
# so do uploads of every size over connections that gather their records into few sends.
# Those two rewire libcurl's BIOs, so only libcurl 7.88 with OpenSSL 3 gets them; an
# engine with plain connections, as every other libcurl gets, moves the same bytes.
# A URL whose scheme is not what its port speaks (http:// to the HTTPS emulator,
# https:// to a plain-http server) fails after one try, naming the scheme to use.
set(XIO_TLS_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tlsfix.c
  ${CMAKE_CURRENT_LIST_DIR}/tlsserver.c
  ${CMAKE_CURRENT_LIST_DIR}/blob_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/file_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/session_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/trust_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/readahead_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/coalesce_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/plain_tls_test.c
  ${CMAKE_CURRENT_LIST_DIR}/readcheck_tls_test.c)
if(TARGET xio_cli)
  list(APPEND XIO_TLS_SOURCES ${CMAKE_SOURCE_DIR}/tests/samples/cli/clirun.c
       ${CMAKE_CURRENT_LIST_DIR}/cli_tls_test.c ${CMAKE_CURRENT_LIST_DIR}/scheme_tls_test.c)
endif()
xio_add_suite(NAME tls AZURITE_TLS TIMEOUT 60
  SOURCES ${XIO_TLS_SOURCES}
  LIBS xio xio_blob_sync_test PkgConfig::CJSON OpenSSL::SSL Threads::Threads)
target_include_directories(test_tls PRIVATE ${CMAKE_SOURCE_DIR}/tests/samples/cli ${CMAKE_SOURCE_DIR}/blobio)
if(TARGET xio_cli)
  add_dependencies(test_tls xio_cli)
  target_compile_definitions(test_tls PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>")
endif()
