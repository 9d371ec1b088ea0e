# The fault proxy's spec (faultspec.h: fault specs and fidelity profiles, pure) as a
# static library of its own, for the proxy and for what only starts it (the emulator
# library behind `xio emulator`), and the fault proxy as a static library (the rest
# of the .c files here but main.c), defined once for both of its users: the
# xio-faultproxy program beside it and the fault tests (tests/blobio/fault), which are
# built even without the samples.
if(NOT TARGET xio_faultspec)
  add_library(xio_faultspec STATIC
    ${CMAKE_CURRENT_LIST_DIR}/rates.c ${CMAKE_CURRENT_LIST_DIR}/profile.c)
  target_include_directories(xio_faultspec PUBLIC ${CMAKE_CURRENT_LIST_DIR})
endif()
if(NOT TARGET xio_faultproxy)
  add_library(xio_faultproxy STATIC
    ${CMAKE_CURRENT_LIST_DIR}/http.c ${CMAKE_CURRENT_LIST_DIR}/conn.c
    ${CMAKE_CURRENT_LIST_DIR}/faults.c ${CMAKE_CURRENT_LIST_DIR}/records.c
    ${CMAKE_CURRENT_LIST_DIR}/front.c ${CMAKE_CURRENT_LIST_DIR}/throttle.c
    ${CMAKE_CURRENT_LIST_DIR}/fidelity.c ${CMAKE_CURRENT_LIST_DIR}/answers.c
    ${CMAKE_CURRENT_LIST_DIR}/diffs.c ${CMAKE_CURRENT_LIST_DIR}/checksums.c)
  target_include_directories(xio_faultproxy PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(xio_faultproxy PUBLIC xio_faultspec Threads::Threads)
endif()

# The program (main.c), for `xio emulator start` and for the tests' harness, which
# puts it in front of Azurite (samples/testers/emulator/azurite/azurite.sh --front)
# even in a build without the samples. Installed by
# samples/testers/faultproxy/CMakeLists.txt.
if(NOT TARGET xio-faultproxy)
  add_executable(xio-faultproxy ${CMAKE_CURRENT_LIST_DIR}/main.c)
  set_target_properties(xio-faultproxy PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${PROJECT_BINARY_DIR}/samples)
  target_link_libraries(xio-faultproxy PRIVATE xio_faultproxy)
endif()
