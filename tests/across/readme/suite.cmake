# readme: the examples of the README and the manual work as written. Each document
# with marked blocks (README.md, docs/*.md, docs/benchmarks/*.md) gets a test that
# runs them (readme_examples.sh says how each kind runs): xio lines written for Azure
# against the test Azurite, shell blocks whole with a private `xio emulator`, the
# Python example with the real python3 and the built SQLite extension, the C example
# compiled against the built libraries. Every container name in the documents' URLs
# is checked to be a valid one.
set(XIO_README_SH ${CMAKE_CURRENT_LIST_DIR}/readme_examples.sh)
file(GLOB xio_readme_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md
     ${PROJECT_SOURCE_DIR}/docs/benchmarks/*.md)
set(xio_readme_docs ${PROJECT_SOURCE_DIR}/README.md ${xio_readme_docs})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${xio_readme_docs})

# The Python the examples run with: Debian's, whose sqlite3 module loads extensions
# (a pyenv build on PATH often cannot); the test fails naming it if it cannot.
if(NOT XIO_README_PYTHON)
  if(EXISTS /usr/bin/python3)
    set(XIO_README_PYTHON /usr/bin/python3)
  else()
    set(XIO_README_PYTHON python3)
  endif()
endif()
set(xio_readme_cflags "-I${PROJECT_SOURCE_DIR}/xio/include -I${PROJECT_SOURCE_DIR}/blobio/include -I${PROJECT_SOURCE_DIR}/auth/include")
if(XIO_SANITIZE STREQUAL "thread")
  string(APPEND xio_readme_cflags " -fsanitize=thread")
elseif(XIO_SANITIZE)
  string(APPEND xio_readme_cflags " -fsanitize=address,undefined")
endif()

if(TARGET xio_cli)
  foreach(doc ${xio_readme_docs})
    file(STRINGS ${doc} markers REGEX "^<!-- readme-test: ")
    if(NOT markers)
      continue()
    endif()
    # README.md -> readme, docs/cli.md -> docs_cli, docs/benchmarks/x.md -> docs_benchmarks_x
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${doc})
    string(REGEX REPLACE "\\.md$" "" tag ${rel})
    string(REGEX REPLACE "[/.-]" "_" tag ${tag})
    string(TOLOWER ${tag} tag)
    set(tname readme.${tag}_examples_run)
    add_test(NAME ${tname}
      COMMAND ${XIO_AZURITE_SH} run ${XIO_AZURITE_STATE}
        sh ${XIO_README_SH} doc ${doc} ${CMAKE_BINARY_DIR} ${CMAKE_C_COMPILER}
          "${xio_readme_cflags}"
          "$<TARGET_FILE:xio> $<TARGET_FILE:xio_blob> $<TARGET_FILE:xio_auth>"
          ${XIO_README_PYTHON})
    set(labels readme)
    # The stock sqlite3 shell and Python cannot load an extension built with the
    # sanitizers (their runtime must come first), so documents that load it run in
    # the normal build only; the VFS itself runs under them in tests/samples/sqlite.
    # So do those that load the nbdkit plugin into the system's nbdkit (as the nbdkit
    # suite does, tests/samples/nbdkit).
    if(markers MATCHES "readme-test: python" OR markers MATCHES "readme-test: script")
      file(READ ${doc} body)
      if(markers MATCHES "readme-test: python" OR body MATCHES "\\.load [^\n]*xio_sqlite"
         OR body MATCHES "nbdkit-xio-plugin\\.so")
        list(APPEND labels no-asan)
      endif()
    endif()
    # A document with no C example runs the command line only, which the cli and
    # badinput suites run under the sanitizers: its examples run in the normal build.
    if(NOT markers MATCHES "readme-test: c ")
      list(APPEND labels no-asan)
    endif()
    # 77: a `script root` block skipped (not root, or a tool `make deps` installs missing).
    set_tests_properties(${tname} PROPERTIES FIXTURES_REQUIRED azurite
      LABELS "${labels}" TIMEOUT 300 SKIP_RETURN_CODE 77
      ENVIRONMENT "XIO_IMDS_ENDPOINT=http://127.0.0.1:9/metadata/identity/oauth2/token;XIO_DMI_ASSET_TAG_FILE=/nonexistent/chassis_asset_tag")
  endforeach()
endif()
add_test(NAME readme.container_names_are_valid
  COMMAND sh ${XIO_README_SH} names ${xio_readme_docs})
set_tests_properties(readme.container_names_are_valid PROPERTIES LABELS readme)
