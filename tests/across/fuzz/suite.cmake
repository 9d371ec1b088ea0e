# fuzz: one target per parser of outside input (tests/across/fuzz/TARGET.c), each with a
# committed seed corpus in tests/across/fuzz/corpus/TARGET/.
#  - Always: fuzz_replay_TARGET, the target with replay.c's main, registered as the
#    ctest fuzz_replay.TARGET (label fuzz_replay), which runs every corpus file
#    through it (seconds, in the normal and the sanitizer builds, no clang needed).
#  - With -DXIO_FUZZ=ON (clang): fuzz_TARGET linked with libFuzzer, all of them
#    built by the target xio_fuzzers (make fuzz builds and runs them).
set(XIO_FUZZ_TARGETS connstr sas url dates size credfile redact headers
    xml_error xml_page_list xml_blob_list token_json xml_udk token_endpoint)

# Sources and libraries a target needs beyond its own file.
function(xio_fuzz_setup exe name)
  target_sources(${exe} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/util.c)
  if(name MATCHES "^(xml_|headers|token_endpoint)")
    target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR}/blobio)
    target_link_libraries(${exe} PRIVATE xio_blob)
  elseif(name STREQUAL "size")
    target_link_libraries(${exe} PRIVATE xio)
  else()
    target_link_libraries(${exe} PRIVATE xio_auth PkgConfig::CJSON)
  endif()
endfunction()

if(XIO_FUZZ)
  add_custom_target(xio_fuzzers)
  foreach(name ${XIO_FUZZ_TARGETS})
    add_executable(fuzz_${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
    xio_fuzz_setup(fuzz_${name} ${name})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    add_dependencies(xio_fuzzers fuzz_${name})
  endforeach()
else()
  foreach(name ${XIO_FUZZ_TARGETS})
    add_executable(fuzz_replay_${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c
                   ${CMAKE_CURRENT_LIST_DIR}/replay.c)
    xio_fuzz_setup(fuzz_replay_${name} ${name})
    add_test(NAME fuzz_replay.${name}
             COMMAND fuzz_replay_${name} ${CMAKE_CURRENT_LIST_DIR}/corpus/${name})
    set_tests_properties(fuzz_replay.${name} PROPERTIES LABELS "fuzz_replay" TIMEOUT 120)
  endforeach()
endif()

# fuzz_unit: the defects the targets found, pinned, the quiet XML parsers (no
# libxml2 message reaches stderr; the host's handlers are kept) and the targets'
# secret check, which must still fire on a real leak.
xio_add_suite(NAME fuzz_unit
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/findings_test.c
    ${CMAKE_CURRENT_LIST_DIR}/xml_quiet_test.c
    ${CMAKE_CURRENT_LIST_DIR}/secret_check_test.c
    ${CMAKE_CURRENT_LIST_DIR}/util.c
  LIBS xio_blob LibXml2::LibXml2 Threads::Threads)
target_include_directories(test_fuzz_unit PRIVATE ${PROJECT_SOURCE_DIR}/blobio)
