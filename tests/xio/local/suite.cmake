# xio_local: the local backend through the public API, on files in a fresh temporary
# directory per test (no emulator). A fallocate(2) wrapper injects refusals and
# failures to drive the clear fallbacks; an allocator set through xio's seam fails a
# thread's small allocations on demand.
xio_add_suite(NAME xio_local
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/fallocate_shim.c
    ${CMAKE_CURRENT_LIST_DIR}/basic_test.c
    ${CMAKE_CURRENT_LIST_DIR}/zero_test.c
    ${CMAKE_CURRENT_LIST_DIR}/async_test.c
    ${CMAKE_CURRENT_LIST_DIR}/alloc_shim.c
    ${CMAKE_CURRENT_LIST_DIR}/teardown_test.c
  LIBS xio Threads::Threads
  TIMEOUT 300)
