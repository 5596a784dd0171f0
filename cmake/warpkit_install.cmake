include(CMakePackageConfigHelpers)

install(TARGETS warpkit EXPORT warpkitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY lib/include/wk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT warpkitTargets NAMESPACE warpkit::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)

configure_package_config_file(cmake/warpkitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/warpkitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/warpkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warpkitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/warpkitConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)
