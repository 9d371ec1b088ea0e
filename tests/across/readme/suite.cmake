# readme: the README's examples work as written. The marked ```sh blocks run against
# the test Azurite (account and endpoint swapped in, credentials from the fixture's
# connection string), each command exiting 0 with its success phrase; and every
# container name in the README's URLs is a valid one.
set(XIO_README ${PROJECT_SOURCE_DIR}/README.md)
set(XIO_README_SH ${CMAKE_CURRENT_LIST_DIR}/readme_examples.sh)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${XIO_README})
if(TARGET xio_cli)
  add_test(NAME readme.shell_examples_run
    COMMAND ${XIO_AZURITE_SH} run ${XIO_AZURITE_STATE}
      sh ${XIO_README_SH} run ${XIO_README} $<TARGET_FILE:xio_cli>)
  set_tests_properties(readme.shell_examples_run PROPERTIES
    FIXTURES_REQUIRED azurite LABELS readme TIMEOUT 120)
endif()
add_test(NAME readme.container_names_are_valid
  COMMAND sh ${XIO_README_SH} names ${XIO_README})
set_tests_properties(readme.container_names_are_valid PROPERTIES LABELS readme)
