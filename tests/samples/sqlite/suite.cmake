# The SQLite VFS on page blobs (samples/engines/sqlite) against Azurite, with the system's
# libsqlite3: reads of a database file below SQLite against a copy in memory,
# workloads in WAL and DELETE mode, request counts per commit and per
# large transaction, one process at a time, fork, lost leases, crashes, bad input,
# interop with the xio CLI, snapshots, a commit whose writes outlast the lease (through
# the fault proxy). The limit of 15 minutes only catches a hang: the checkpoint of
# 100 MiB took over 4 minutes under AddressSanitizer beside other work.
include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
if(TARGET xio_sqlite)
  add_executable(sqlite_worker ${CMAKE_CURRENT_LIST_DIR}/worker.c)
  target_link_libraries(sqlite_worker PRIVATE xio_sqlite)
  xio_add_suite(NAME sqlite AZURITE TIMEOUT 900
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/sqfix.c
      ${CMAKE_CURRENT_LIST_DIR}/workload_test.c
      ${CMAKE_CURRENT_LIST_DIR}/requests_test.c
      ${CMAKE_CURRENT_LIST_DIR}/process_test.c
      ${CMAKE_CURRENT_LIST_DIR}/edge_test.c
      ${CMAKE_CURRENT_LIST_DIR}/names_test.c
      ${CMAKE_CURRENT_LIST_DIR}/store_test.c
      ${CMAKE_CURRENT_LIST_DIR}/large_test.c
      ${CMAKE_CURRENT_LIST_DIR}/fork_test.c
      ${CMAKE_CURRENT_LIST_DIR}/lease_test.c
      ${CMAKE_CURRENT_LIST_DIR}/backup_test.c
      ${CMAKE_CURRENT_LIST_DIR}/delete_test.c
      ${CMAKE_CURRENT_LIST_DIR}/queue_test.c
    LIBS xio_sqlite xio xio_faultproxy Threads::Threads)
  target_compile_definitions(test_sqlite PRIVATE
    SQLITE_WORKER="$<TARGET_FILE:sqlite_worker>" XIO_CLI="$<TARGET_FILE:xio_cli>"
    SQLITE_EXT="$<TARGET_FILE:xio_sqlite_ext>")
  add_dependencies(test_sqlite sqlite_worker xio_cli xio_sqlite_ext)
  # The largest transactions, the checkpoint and VACUUM of 100 MiB count requests in
  # the normal build only (under AddressSanitizer they took seven minutes beside other
  # work): what they run (held writes, joined runs, the read cache) runs under it in
  # the 72 MiB spilled transaction and the rest of the suite.
  foreach(t transaction_of_100_mib_costs_requests_linear_in_its_size
            transaction_of_200_mib_costs_requests_linear_in_its_size
            checkpoint_of_100_mib_costs_requests_linear_in_its_size
            vacuum_of_100_mb_costs_requests_linear_in_its_size_delete
            vacuum_of_100_mb_costs_requests_linear_in_its_size_wal)
    set_property(TEST sqlite.${t} APPEND PROPERTY LABELS no-asan)
  endforeach()
  # A commit that waits out a lease's whole duration, in the normal build: under the
  # sanitizers renewals behind a long queue run in xio_pageblob.
  set_property(TEST sqlite.a_commit_whose_writes_outlast_the_lease_keeps_it APPEND PROPERTY
               LABELS no-asan)
endif()

# Stock programs loading the extension: the sqlite3 shell, and Python's sqlite3
# module forking workers. Not under AddressSanitizer: they are not built with it, so
# they cannot load a module that is.
if(TARGET xio_sqlite_ext)
  xio_add_suite(NAME sqlite_shell AZURITE LABELS no-asan
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/sqfix.c ${CMAKE_CURRENT_LIST_DIR}/shell_test.c
      ${CMAKE_CURRENT_LIST_DIR}/python_test.c
    LIBS xio_sqlite xio Threads::Threads)
  target_compile_definitions(test_sqlite_shell PRIVATE
    SQLITE_WORKER="$<TARGET_FILE:sqlite_worker>" SQLITE_EXT="$<TARGET_FILE:xio_sqlite_ext>")
  add_dependencies(test_sqlite_shell sqlite_worker xio_sqlite_ext)
endif()
