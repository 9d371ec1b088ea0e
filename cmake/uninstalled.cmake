# xio used from its build tree before any install, as libgit2 and curl offer it: a
# CMake package (find_package(xio) with CMAKE_PREFIX_PATH=BUILD, or xio_DIR=BUILD:
# xioConfig.cmake beside xioTargets.cmake, whose targets name the source tree's
# headers and the built libraries) and pkg-config files (PKG_CONFIG_PATH=BUILD:
# xio-uninstalled.pc, which pkg-config prefers to xio.pc). Included after the samples,
# whose SQLite VFS joins both when it is built.
export(EXPORT xioTargets NAMESPACE xio:: FILE ${PROJECT_BINARY_DIR}/xioTargets.cmake)

# NAME-uninstalled.pc from cmake/NAME-uninstalled.pc.in: the project's variables
# first, then the libraries' paths (generator expressions, known at generation).
function(xio_uninstalled_pc name)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${name}-uninstalled.pc.in
                 ${PROJECT_BINARY_DIR}/CMakeFiles/${name}-uninstalled.pc.in @ONLY)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/${name}-uninstalled.pc
       INPUT ${PROJECT_BINARY_DIR}/CMakeFiles/${name}-uninstalled.pc.in)
endfunction()
xio_uninstalled_pc(xio)

if(TARGET xio_sqlite)
  export(EXPORT xio_sqliteTargets NAMESPACE xio:: FILE ${PROJECT_BINARY_DIR}/xio_sqliteTargets.cmake)
  xio_uninstalled_pc(xio_sqlite)
else()
  # xioConfig.cmake loads the VFS's targets when their file is there: none is built.
  file(REMOVE ${PROJECT_BINARY_DIR}/xio_sqliteTargets.cmake
       ${PROJECT_BINARY_DIR}/xio_sqlite-uninstalled.pc)
endif()
