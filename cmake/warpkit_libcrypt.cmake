# libxcrypt (crypt.h, libcrypt): the CPU path and reference of wk::hash. Defines the imported
# target warpkit::libcrypt, found on the machine that includes this file: pkg-config's libxcrypt
# (when pkg-config has it) hints where, find_path/find_library find it. The build includes it
# (cmake/warpkit_dependencies.cmake) and so does the installed warpkitConfig.cmake, on the
# consumer's machine, so the installed package holds no path of the machine that built it.
if(NOT TARGET warpkit::libcrypt)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(PC_WARPKIT_LIBXCRYPT QUIET libxcrypt)
  endif()
  find_path(WARPKIT_LIBCRYPT_INCLUDE_DIR crypt.h HINTS ${PC_WARPKIT_LIBXCRYPT_INCLUDE_DIRS})
  find_library(WARPKIT_LIBCRYPT_LIBRARY NAMES crypt HINTS ${PC_WARPKIT_LIBXCRYPT_LIBRARY_DIRS})
  mark_as_advanced(WARPKIT_LIBCRYPT_INCLUDE_DIR WARPKIT_LIBCRYPT_LIBRARY)
  if(WARPKIT_LIBCRYPT_INCLUDE_DIR AND WARPKIT_LIBCRYPT_LIBRARY)
    add_library(warpkit::libcrypt UNKNOWN IMPORTED)
    set_target_properties(warpkit::libcrypt PROPERTIES
      IMPORTED_LOCATION "${WARPKIT_LIBCRYPT_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${WARPKIT_LIBCRYPT_INCLUDE_DIR}")
  endif()
endif()
