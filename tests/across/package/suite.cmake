# The installed package: headers, libraries, pkg-config file and CMake package work
# for a program outside the project.
add_test(NAME package.consumer_builds_against_install
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(package.consumer_builds_against_install PROPERTIES
                     LABELS "package;no-asan" TIMEOUT 300)
# The installed xio finds the emulator's starter and Azurite without the source or
# build tree (samples only: it installs the xio program).
if(TARGET xio_cli)
  add_test(NAME package.installed_xio_runs_the_emulator
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/emulator_check.sh ${CMAKE_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(package.installed_xio_runs_the_emulator PROPERTIES
                       LABELS "package;no-asan" TIMEOUT 300)
endif()
# The SQLite VFS's install (built with the samples).
if(TARGET xio_sqlite)
  add_test(NAME package.sqlite_consumer_builds_against_install
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR} sqlite)
  set_tests_properties(package.sqlite_consumer_builds_against_install PROPERTIES
                       LABELS "package;no-asan" TIMEOUT 300)
endif()
