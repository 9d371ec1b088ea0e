# The `samples` target: every library and program under samples/ (the xio command
# line, the demo, the SQLite VFS and its extension, the nbdkit plugin, the fault
# proxy, the benchmarks, the example engine) and the libraries they stand on, without
# the tests. `make demo` builds it, so every quick start of the README runs after it,
# and it is all `cmake --install` installs.

# The build-system targets defined in directory `dir` and the directories under it,
# into `out`.
function(xio_targets_under dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    xio_targets_under(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

xio_targets_under(${PROJECT_SOURCE_DIR}/samples xio_sample_targets)
add_custom_target(samples)
add_dependencies(samples xio_auth xio_blob xio ${xio_sample_targets})
