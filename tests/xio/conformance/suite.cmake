# One conformance suite, run against every backend: the same tests compiled once
# per backend (page blobs on Azurite, local files on this machine's file system).
foreach(backend pageblob local)
  if(backend STREQUAL "pageblob")
    set(az AZURITE)
  else()
    set(az "")
  endif()
  xio_add_suite(NAME xio_conf_${backend} ${az} TIMEOUT 180
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/../common/xfix.c
      ${CMAKE_CURRENT_LIST_DIR}/conformance_test.c
    LIBS xio Threads::Threads)
  target_include_directories(test_xio_conf_${backend} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
  if(backend STREQUAL "local")
    target_compile_definitions(test_xio_conf_${backend} PRIVATE CONF_LOCAL=1)
  endif()
endforeach()
