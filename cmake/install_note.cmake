# What `cmake --install` (and `make install PREFIX=DIR`) prints last: the lines a
# shell needs to use an install under a prefix of one's own (~/.local, no root),
# namely PATH, PKG_CONFIG_PATH and CMAKE_PREFIX_PATH (only those the environment does
# not hold already), and where the SQLite extension and the nbdkit plugin are. The
# libraries are static, so no LD_LIBRARY_PATH. Included last, so it runs after every
# other install rule; the script is cmake/install_note.cmake.in.
set(XIO_NOTE_SQLITE "")
if(TARGET xio_sqlite_ext)
  set(XIO_NOTE_SQLITE "${CMAKE_INSTALL_LIBDIR}/xio/xio_sqlite")
endif()
set(XIO_NOTE_NBDKIT "")
set(XIO_NOTE_NBDKIT_DIR "")
if(TARGET xio_nbdkit)
  set(XIO_NOTE_NBDKIT "${XIO_NBDKIT_PLUGINDIR}/nbdkit-xio-plugin.so")
  pkg_get_variable(XIO_NOTE_NBDKIT_DIR nbdkit plugindir) # where `nbdkit xio` looks
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/install_note.cmake.in
               ${PROJECT_BINARY_DIR}/CMakeFiles/xio_install_note.cmake @ONLY)
install(SCRIPT ${PROJECT_BINARY_DIR}/CMakeFiles/xio_install_note.cmake)
