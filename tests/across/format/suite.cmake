# format: the tracked C sources and headers match the project's .clang-format (the
# files `make format` rewrites), checked with Debian's clang-format 14.
add_test(NAME format.sources_match_clang_format
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(format.sources_match_clang_format PROPERTIES LABELS "lint;format;no-asan" TIMEOUT 300)
