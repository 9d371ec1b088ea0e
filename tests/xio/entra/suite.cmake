# Entra ID and credentials that change while files stay open. entra_unit needs no
# emulator: token answers, the chain and its report, the metadata service asked only
# on an Azure VM or on request (the DMI file and the service's address pointed at
# stand-ins on loopback), the managed identity requests on a page-blob engine (a 500
# retried, plain http to a remote host refused), the token cache and its timer, and
# user delegation SAS vectors. entra runs against the emulator that accepts bearer tokens
# (azurite_oauth): the file API and every CLI command with tokens alone from a
# stand-in managed identity endpoint, a stand-in `az` and the token callback; a
# managed identity endpoint over https trusted through the context's CA file (and
# --cacert); refresh during a transfer longer than a token's life; a SAS renewed in
# the credential file while a file is open, with the expiry warning; a user
# delegation SAS accepted for exactly its permissions; no token ever sent over plain
# http.
set(XIO_ENTRA_AZ_DIR ${CMAKE_CURRENT_LIST_DIR})
xio_add_suite(NAME entra_unit TIMEOUT 60
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/standin.c ${CMAKE_CURRENT_LIST_DIR}/unit_test.c
  LIBS xio OpenSSL::SSL Threads::Threads)
target_compile_definitions(test_entra_unit PRIVATE XIO_TEST_AZ_DIR="${XIO_ENTRA_AZ_DIR}")

set(XIO_ENTRA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/standin.c
  ${CMAKE_CURRENT_LIST_DIR}/efix.c
  ${CMAKE_CURRENT_LIST_DIR}/oauth_test.c
  ${CMAKE_CURRENT_LIST_DIR}/rotation_test.c
  ${CMAKE_CURRENT_LIST_DIR}/udk_test.c)
if(TARGET xio_cli)
  list(APPEND XIO_ENTRA_SOURCES ${CMAKE_SOURCE_DIR}/tests/samples/cli/clirun.c
       ${CMAKE_CURRENT_LIST_DIR}/cli_entra_test.c ${CMAKE_CURRENT_LIST_DIR}/insecure_test.c)
endif()
xio_add_suite(NAME entra AZURITE_OAUTH TIMEOUT 120
  SOURCES ${XIO_ENTRA_SOURCES}
  LIBS xio PkgConfig::CURL PkgConfig::CJSON OpenSSL::SSL Threads::Threads)
target_compile_definitions(test_entra PRIVATE XIO_TEST_AZ_DIR="${XIO_ENTRA_AZ_DIR}")
target_include_directories(test_entra PRIVATE ${CMAKE_SOURCE_DIR}/tests/samples/cli)
if(TARGET xio_cli)
  add_dependencies(test_entra xio_cli)
  target_compile_definitions(test_entra PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>")
endif()
