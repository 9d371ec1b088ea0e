# xio_held: held writes (write-back), counted in storage requests (never in time), on
# page blobs (Azurite) and local files: xio_file_hold of many small unaligned records
# sends nothing and reads (xio_file_held_read, xio_file_read, an asynchronous read)
# see them over what storage holds; xio_file_flush sends a contiguous held run as one
# write request with no read-backs, grows the file past its end and leaves nothing
# held; newer held bytes win over older ones and xio_file_held_each visits disjoint
# runs in offset order; the commit range (xio_file_set_commit_range) is the last
# write to complete, xio_file_send_held sends everything but it (a run crossing its
# end is cut there); xio_file_drop_held forgets bytes unsent; close sends what is
# held; holds the file cannot take (not exclusive, read-only, unaligned without
# XIO_OPEN_UNALIGNED, past 2^64 or the size limit) are refused and hold nothing. A
# flush joins runs a little apart into one read and one write of their span where that
# costs less than a request per run (join_test.c; a write into a gap during the read,
# through the fault proxy, makes them go one by one).
include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
xio_add_suite(NAME xio_held AZURITE TIMEOUT 120
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../common/xfix.c
    ${CMAKE_CURRENT_LIST_DIR}/held_test.c
    ${CMAKE_CURRENT_LIST_DIR}/join_test.c
  LIBS xio xio_faultproxy Threads::Threads)
target_include_directories(test_xio_held PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
