# xio_append: how the file layer serves an engine's small appends on a file opened
# exclusively, counted in storage requests (never in time): records of 100 B, 4 KiB
# and 60 KiB submitted asynchronously and flushed every N are combined into about
# one write request per flush with no read-backs, on page blobs (Azurite) and local
# files; each write completes on its own after its bytes are acknowledged; the
# bytes read back are the bytes written; overlapping writes keep their order; bytes
# the engine forgot (xio_file_forget_from) are never read back.
xio_add_suite(NAME xio_append AZURITE TIMEOUT 300
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../common/xfix.c
    ${CMAKE_CURRENT_LIST_DIR}/append_test.c
  LIBS xio Threads::Threads)
target_include_directories(test_xio_append PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../common)
