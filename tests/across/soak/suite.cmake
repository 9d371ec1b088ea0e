# soak: the fault soak. An engine's mixed workload (random 8 KiB pages of a data
# file, a sequential log grown by clear, flush points) and, in soak_sqlite, SQLite
# transactions through the xio VFS, both through the fault-injecting proxy at 10%
# 503, 2% resets, 2% lost responses, 5% torn responses and 1% stalls past the
# per-try timeout; an independent reader straight to Azurite then checks every
# acknowledged write against an in-memory model. Each test runs XIO_SOAK_SECONDS
# (default 30); `make soak` runs them longer. Not in the sanitizer trees (labelled
# no-asan): a minute more there, mostly waiting on faults whose code paths
# blobio_fault already runs sanitized; by hand it runs there too:
#   XIO_SOAK_SECONDS=20 samples/testers/emulator/azurite/azurite.sh run STATE \
#     build-asan/tests/test_soak
include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
xio_add_suite(NAME soak AZURITE LABELS no-asan TIMEOUT 600
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/soakfix.c
    ${CMAKE_CURRENT_LIST_DIR}/engine_test.c
  LIBS xio xio_faultproxy Threads::Threads)

if(TARGET xio_sqlite)
  xio_add_suite(NAME soak_sqlite AZURITE LABELS "soak;no-asan" TIMEOUT 600
    SOURCES
      ${CMAKE_CURRENT_LIST_DIR}/soakfix.c
      ${CMAKE_CURRENT_LIST_DIR}/sqlite_test.c
    LIBS xio_sqlite xio xio_faultproxy Threads::Threads)
endif()
