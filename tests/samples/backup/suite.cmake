# Incremental backups (the library samples/backup, the commands samples/xio/backup.c
# and restore.c):
# `xio backup` and `xio restore` run as programs against the emulator (Azurite
# behind the fidelity front, which answers snapshot diffs): the base link, chains
# with writes, clears, growth and shrink restored at every point byte for byte,
# --keep, kill -9 during a backup and a restore, SIGINT during a restore and the
# command it names to finish it, damaged pieces, a read body damaged
# on its way (read again, never recorded), bad input, private modes of a chain and of
# a restored file, a restore's partial file owned by one run, a named snapshot after
# an unfinished link, a chain ended by a copy onto its blob, an unfinished link of
# another blob, restore --resume onto a complete blob, damaged manifest sizes, and
# the bytes and requests of an incremental backup of a 1 GiB blob (no-asan); and the
# library called directly, in a program's own context, without the command line.
# backup_manifest reads manifests alone, under an allocator that records what is
# asked for.
if(TARGET xio_cli)
  include(${PROJECT_SOURCE_DIR}/samples/testers/faultproxy/library.cmake)
  set(bk_common ${CMAKE_CURRENT_LIST_DIR}/bkfix.c ${PROJECT_SOURCE_DIR}/tests/samples/cli/clirun.c
      ${PROJECT_SOURCE_DIR}/tests/samples/cli/cliproxy.c)
  xio_add_suite(NAME backup AZURITE TIMEOUT 180
    SOURCES ${bk_common}
      ${CMAKE_CURRENT_LIST_DIR}/base_test.c
      ${CMAKE_CURRENT_LIST_DIR}/error_test.c
      ${CMAKE_CURRENT_LIST_DIR}/kill_test.c
      ${CMAKE_CURRENT_LIST_DIR}/chain_test.c
      ${CMAKE_CURRENT_LIST_DIR}/readcheck_test.c
      ${CMAKE_CURRENT_LIST_DIR}/private_test.c
      ${CMAKE_CURRENT_LIST_DIR}/named_test.c
      ${CMAKE_CURRENT_LIST_DIR}/source_test.c
      ${CMAKE_CURRENT_LIST_DIR}/resume_test.c
      ${CMAKE_CURRENT_LIST_DIR}/damaged_test.c
      ${CMAKE_CURRENT_LIST_DIR}/stop_test.c
      ${CMAKE_CURRENT_LIST_DIR}/library_test.c
    LIBS xio_backup xio xio_faultproxy PkgConfig::CJSON)
  # The 1 GiB case, apart: labelled no-asan (the upload of its 1 GiB dominates).
  xio_add_suite(NAME backup_large AZURITE TIMEOUT 400 LABELS no-asan
    SOURCES ${bk_common} ${CMAKE_CURRENT_LIST_DIR}/large_test.c
    LIBS xio xio_faultproxy PkgConfig::CJSON)
  foreach(t test_backup test_backup_large)
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/tests/samples/cli)
    add_dependencies(${t} xio_cli)
    target_compile_definitions(${t} PRIVATE XIO_CLI_PATH="$<TARGET_FILE:xio_cli>")
  endforeach()
endif()

# The manifests (samples/backup: chain.c, pending.c) read on their own, no emulator: damaged sizes
# refused before anything is allocated from them, pending.json's versions.
if(TARGET xio_backup)
  xio_add_suite(NAME backup_manifest
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/manifest_test.c
    LIBS xio_backup xio)
endif()
