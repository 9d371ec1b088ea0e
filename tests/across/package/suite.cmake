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
  # The installed xio links neither the demo (the xio-demo program, not installed)
  # nor the fault proxy (the xio-faultproxy program beside it).
  add_test(NAME package.installed_xio_links_neither_demo_nor_fault_proxy
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/installed_cli.sh ${CMAKE_BINARY_DIR}
                   $<TARGET_FILE:xio_demo> $<TARGET_FILE:xio_faultproxy>)
  set_tests_properties(package.installed_xio_links_neither_demo_nor_fault_proxy PROPERTIES
                       LABELS "package;no-asan" TIMEOUT 300)
endif()
# The SQLite VFS's install (built with the samples).
if(TARGET xio_sqlite)
  add_test(NAME package.sqlite_consumer_builds_against_install
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR} sqlite)
  set_tests_properties(package.sqlite_consumer_builds_against_install PROPERTIES
                       LABELS "package;no-asan" TIMEOUT 300)
endif()
# Programs under samples/ stand where an engine author stands: on the installed
# headers of the file layer and the shared base, never an internal header, the
# page-blob client's headers or the libraries' internal prefix.
add_test(NAME package.samples_use_the_public_headers_only
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/samples_public.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(package.samples_use_the_public_headers_only PROPERTIES
                     LABELS "package;unit")

# The parts of the file layer call down: none calls the layer's public file API.
add_test(NAME package.file_layer_calls_down_only
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/layer_down.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(package.file_layer_calls_down_only PROPERTIES LABELS "package;unit")

# `make demo` builds the `samples` target: every sample and the installed libraries,
# no test (read from the Makefile generator's rules, so only under it).
if(XIO_BUILD_SAMPLES AND CMAKE_GENERATOR STREQUAL "Unix Makefiles")
  add_test(NAME package.samples_target_builds_every_sample_and_no_test
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/samples_target.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(package.samples_target_builds_every_sample_and_no_test PROPERTIES
                       LABELS "package;unit" TIMEOUT 60)
endif()

# The README's C program builds without root: against the build tree (its uninstalled
# pkg-config file and CMake package) and against an install under a scratch prefix
# with the lines `cmake --install` prints; each build runs once on the emulator.
if(XIO_BUILD_SAMPLES)
  add_test(NAME package.readme_c_program_builds_uninstalled_and_installed_without_root
           COMMAND ${XIO_AZURITE_SH} run ${XIO_AZURITE_STATE}
                   sh ${CMAKE_CURRENT_LIST_DIR}/readme_c.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(package.readme_c_program_builds_uninstalled_and_installed_without_root
                       PROPERTIES FIXTURES_REQUIRED azurite LABELS "package;no-asan" TIMEOUT 300)
endif()

# The first `make demo` says what it installs and builds, and how long each took.
add_test(NAME package.first_run_says_what_it_installs_and_builds
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/first_run.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(package.first_run_says_what_it_installs_and_builds PROPERTIES
                     LABELS "package;unit" TIMEOUT 60)
