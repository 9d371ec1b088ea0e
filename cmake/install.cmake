# Installation: the three libraries, their public headers under include/xio/, a
# pkg-config file and a CMake package, all under the one name xio.
include(CMakePackageConfigHelpers)

install(TARGETS xio_auth xio_blob xio EXPORT xioTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES auth/include/xio/error.h auth/include/xio/base.h auth/include/xio/auth.h
              auth/include/xio/alloc.h
              blobio/include/xio/blob.h blobio/include/xio/blob_crc.h blobio/include/xio/blob_alloc.h
              blobio/include/xio/blob_engine.h blobio/include/xio/blob_target.h
              blobio/include/xio/blob_call.h blobio/include/xio/blob_sync.h
              xio/include/xio/xio.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xio)
install(FILES auth/include/xio/entra.h xio/include/xio/credentials.h
              xio/include/xio/entra_sources.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xio)

set(XIO_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xio)
install(EXPORT xioTargets NAMESPACE xio:: DESTINATION ${XIO_CMAKE_DIR})
configure_package_config_file(cmake/xioConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/xioConfig.cmake INSTALL_DESTINATION ${XIO_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/xioConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/xioConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/xioConfigVersion.cmake
        DESTINATION ${XIO_CMAKE_DIR})

# Relocatable: the prefix is found from where the .pc file lies. Made out of the way
# (CMakeFiles/), since it is right only once installed: the build tree's own is
# xio-uninstalled.pc (cmake/uninstalled.cmake).
file(RELATIVE_PATH XIO_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/xio.pc.in ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/xio.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/xio.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
