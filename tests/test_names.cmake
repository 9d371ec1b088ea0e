# test_names.cmake - how ctest learns the tests of a source file: every line
# TEST(name) with name in [a-z0-9_] is one test. A line that starts a test the
# pattern would not see (a capital letter, a space before the parenthesis, an
# indented TEST) would silently never run, so it stops the configure step instead.
#
# Included by tests/CMakeLists.txt for xio_test_names(); also runs as a script,
#   cmake -DXIO_TEST_SOURCE=FILE -P test_names.cmake
# which prints "test names: a;b;..." or fails as the configure step would.

# xio_test_names(SRC OUT): the test names of SRC into OUT; a fatal error naming
# the line when a TEST line does not match the registration pattern.
function(xio_test_names src out)
  file(STRINGS ${src} starts REGEX "^[ \t]*TEST[ \t]*\\(")
  set(names "")
  foreach(line ${starts})
    # A ';' in a line splits it into list items: only the one starting it counts.
    if(NOT line MATCHES "^[ \t]*TEST[ \t]*\\(")
      continue()
    endif()
    if(NOT line MATCHES "^TEST\\(([a-z0-9_]+)\\)")
      message(FATAL_ERROR "${src}: \"${line}\" would not be registered with ctest: a test "
                          "starts its line as TEST(name), name in [a-z0-9_]")
    endif()
    list(APPEND names ${CMAKE_MATCH_1})
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED XIO_TEST_SOURCE)
  xio_test_names(${XIO_TEST_SOURCE} names)
  message(STATUS "test names: ${names}")
endif()
