# xio_rmw: unaligned writes to a page blob that several clients write at once,
# against Azurite: writer processes (fork) that each put single bytes into the same
# sectors lose none of them, a sector changed between the read and the write of its
# read-modify-write is read again (and the 412 shows in the trace and the counters),
# a sector that never stops changing ends in a clear error, and exclusive opens make
# no extra requests.
xio_add_suite(NAME xio_rmw AZURITE TIMEOUT 300
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../common/xfix.c
    ${CMAKE_CURRENT_LIST_DIR}/rmw_test.c
  LIBS xio Threads::Threads)
target_include_directories(test_xio_rmw PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
# Four writer processes in the normal build; under the sanitizers, two run the same
# read-modify-write races.
set_property(TEST xio_rmw.four_writer_processes_lose_no_byte APPEND PROPERTY LABELS no-asan)
