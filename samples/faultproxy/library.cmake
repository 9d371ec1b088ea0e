# The fault proxy as a static library (http.c, conn.c, faults.c, records.c, rates.c), defined once for
# both of its users: the xio-faultproxy program beside it and the fault tests
# (tests/blobio_fault), which are built even without the samples.
if(NOT TARGET xio_faultproxy)
  add_library(xio_faultproxy STATIC
    ${CMAKE_CURRENT_LIST_DIR}/http.c ${CMAKE_CURRENT_LIST_DIR}/conn.c
    ${CMAKE_CURRENT_LIST_DIR}/faults.c ${CMAKE_CURRENT_LIST_DIR}/records.c
    ${CMAKE_CURRENT_LIST_DIR}/rates.c)
  target_include_directories(xio_faultproxy PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(xio_faultproxy PUBLIC Threads::Threads)
endif()
