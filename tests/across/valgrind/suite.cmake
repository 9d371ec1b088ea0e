# A few tests again under valgrind: contexts, engines, leases and async I/O must be
# freed cleanly with no definite or indirect leak and no memory error.
find_program(VALGRIND valgrind)
if(VALGRIND AND NOT XIO_SANITIZE)
  set(vg ${VALGRIND} --error-exitcode=99 --leak-check=full
         --errors-for-leak-kinds=definite,indirect -q)
  foreach(t xio_pageblob:log_growth_to_1tib_is_two_requests
            xio_pageblob:context_free_closes_files_and_releases_leases
            xio_pageblob:break_lease_takes_over
            xio_conf_pageblob:async_completion_and_flush_order
            xio_conf_local:async_completion_and_flush_order
            xio_conf_local:round_trips_unaligned
            blobio:lease_renew_change_release_break)
    string(REPLACE ":" ";" parts ${t})
    list(GET parts 0 suite)
    list(GET parts 1 name)
    add_test(NAME valgrind.${suite}.${name}
             COMMAND ${XIO_AZURITE_SH} run ${XIO_AZURITE_STATE} ${vg}
                     $<TARGET_FILE:test_${suite}> ${name})
    set_tests_properties(valgrind.${suite}.${name} PROPERTIES FIXTURES_REQUIRED azurite
                         LABELS "valgrind;no-asan" TIMEOUT 300)
  endforeach()
endif()
