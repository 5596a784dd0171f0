# The installed package, relocatable (every path in it is relative to where it lies):
#   lib/libwarpkit_{core,image,hash,cipher}.a
#   include/wk/...                  the public headers, wk/version.hpp among them
#   lib/cmake/warpkit/              find_package(warpkit [COMPONENTS core image hash cipher]):
#                                   one export set per domain, so a component finds only its own
#                                   dependencies; warpkit::warpkit when every domain was asked for
#   lib/pkgconfig/warpkit[-core|-image|-hash|-cipher].pc
include(CMakePackageConfigHelpers)

set(WK_DOMAINS core image hash cipher)
foreach(domain IN LISTS WK_DOMAINS)
  string(SUBSTRING ${domain} 0 1 first)
  string(TOUPPER ${first} first)
  string(SUBSTRING ${domain} 1 -1 rest)
  install(TARGETS warpkit_${domain} EXPORT warpkit${first}${rest}Targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT warpkit${first}${rest}Targets NAMESPACE warpkit::
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)
endforeach()
install(TARGETS warpkit EXPORT warpkitTargets)
install(EXPORT warpkitTargets NAMESPACE warpkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)

install(DIRECTORY lib/include/wk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN "*.in" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/lib/include/wk/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wk)
# wk-hash audit's rule files (--rules): share/warpkit/rules/warpkit64.rule
install(DIRECTORY share/rules/ DESTINATION ${CMAKE_INSTALL_DATADIR}/warpkit/rules)

configure_package_config_file(cmake/warpkitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/warpkitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/warpkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warpkitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/warpkitConfigVersion.cmake
              cmake/warpkit_libcrypt.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit)

# ---- pkg-config: prefix=${pcfiledir}/.. up to the install prefix, so the tree may move.
# Where CUDA lies is the consumer's machine's business: cudaincludedir and cudalibdir hold the
# toolkit this build used; pkg-config --define-variable=cudalibdir=... points elsewhere.
set(WK_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(WK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")  # absolute install folders: not relocatable
else()
  file(RELATIVE_PATH rel "/prefix/${WK_PC_DIR}" "/prefix")
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(WK_PC_PREFIX "\${pcfiledir}/${rel}")
endif()
list(GET CUDAToolkit_INCLUDE_DIRS 0 WK_PC_CUDA_INCLUDE)
set(WK_PC_CUDA_VARS "cudaincludedir=${WK_PC_CUDA_INCLUDE}\ncudalibdir=${CUDAToolkit_LIBRARY_DIR}\n")
if(OpenCV_VERSION_MAJOR GREATER_EQUAL 4)
  set(WK_PC_OPENCV opencv4)
else()
  set(WK_PC_OPENCV opencv)
endif()

function(wk_pkgconfig name description requires libs cflags vars)
  set(WK_PC_NAME ${name})
  set(WK_PC_DESCRIPTION "${description}")
  set(WK_PC_REQUIRES "${requires}")
  set(WK_PC_LIBS "${libs}")
  set(WK_PC_CFLAGS "${cflags}")
  set(WK_PC_VARS "${vars}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/warpkit.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc DESTINATION ${WK_PC_DIR})
endfunction()

wk_pkgconfig(warpkit-core "warpkit core: errors, backend and device selection, buffers, streams, NVTX, output files"
  "libcrypto" "-L\${libdir} -lwarpkit_core -L\${cudalibdir} -lcudart_static -lrt -lpthread -ldl"
  "-I\${includedir} -I\${cudaincludedir}" "${WK_PC_CUDA_VARS}")
set(nvjpeg "")
if(WK_HAVE_NVJPEG)
  set(nvjpeg " -L\${cudalibdir} -lnvjpeg")
endif()
set(exiv2 "")
if(WK_HAVE_EXIV2)  # the folder job's metadata (lib/src/io/metadata.cpp)
  set(exiv2 " exiv2")
endif()
wk_pkgconfig(warpkit-image "warpkit image operations, image files and the folder pipeline (CUDA, OpenCV)"
  "warpkit-core ${WK_PC_OPENCV}${exiv2}" "-L\${libdir} -lwarpkit_image${nvjpeg}" "" "${WK_PC_CUDA_VARS}")
wk_pkgconfig(warpkit-hash "warpkit password hashing: crypt methods on the GPU and the CPU (libxcrypt)"
  "warpkit-core libcrypto" "-L\${libdir} -lwarpkit_hash -lcrypt" "" "")
wk_pkgconfig(warpkit-cipher "warpkit IDEA cipher on the GPU and the CPU"
  "warpkit-core libcrypto" "-L\${libdir} -lwarpkit_cipher" "" "")
wk_pkgconfig(warpkit "warpkit: every domain (image, hash, cipher, core)"
  "warpkit-image warpkit-hash warpkit-cipher warpkit-core" "" "" "")
