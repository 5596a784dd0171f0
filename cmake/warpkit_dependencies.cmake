# Every dependency is found the standard way, so the same tree configures against Debian's
# packages (CI, developer machines) and against ../shared/device-kit (the GPU machine).
find_package(CUDAToolkit REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenCV REQUIRED COMPONENTS core imgproc imgcodecs)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(fmt REQUIRED)

# NVTX3 is header-only and ships in the toolkit's include folder (nvtx3/), which CUDA::cudart
# already puts on the include path; it needs only libdl for its injection hook.

# NPP is optional: only a benchmark peer. The CPU machines have no NPP, the GPU machine does.
set(WK_HAVE_NPP OFF)
if(WK_WITH_NPP AND TARGET CUDA::nppicc AND TARGET CUDA::nppc AND TARGET CUDA::nppist AND TARGET CUDA::nppif)
  set(WK_HAVE_NPP ON)
endif()
message(STATUS "warpkit: NPP benchmark peer: ${WK_HAVE_NPP}")

# nvJPEG is optional: GPU JPEG decode in the wk-image folder job (lib/src/io/nvjpeg_decoder.cpp).
# The GPU machine's toolkit has it (CUDA::nvjpeg and nvjpeg.h), the CPU machines' do not.
# WK_NVJPEG_INCLUDE_DIR + WK_NVJPEG_LIBRARY point at another copy (e.g. a header and a stub
# library, to compile-check on a machine without nvJPEG); they win over the toolkit's.
set(WK_NVJPEG_INCLUDE_DIR "" CACHE PATH "Folder with nvjpeg.h (default: the CUDA toolkit's)")
set(WK_NVJPEG_LIBRARY "" CACHE FILEPATH "libnvjpeg to link (default: CUDA::nvjpeg)")
string(TOUPPER "${WK_WITH_NVJPEG}" _wk_nvjpeg_mode)
set(WK_HAVE_NVJPEG OFF)
set(WK_NVJPEG_LINK "")
if(NOT _wk_nvjpeg_mode STREQUAL "AUTO" AND NOT WK_WITH_NVJPEG)
  set(_wk_nvjpeg_mode OFF)
endif()
if(NOT _wk_nvjpeg_mode STREQUAL "OFF")
  if(WK_NVJPEG_INCLUDE_DIR AND WK_NVJPEG_LIBRARY)
    if(EXISTS "${WK_NVJPEG_INCLUDE_DIR}/nvjpeg.h" AND EXISTS "${WK_NVJPEG_LIBRARY}")
      set(WK_HAVE_NVJPEG ON)
      set(WK_NVJPEG_LINK "${WK_NVJPEG_LIBRARY}")
    endif()
  elseif(TARGET CUDA::nvjpeg)
    find_path(WK_NVJPEG_TOOLKIT_HEADER_DIR nvjpeg.h PATHS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
    if(WK_NVJPEG_TOOLKIT_HEADER_DIR)
      set(WK_HAVE_NVJPEG ON)
      set(WK_NVJPEG_LINK CUDA::nvjpeg)
    endif()
  endif()
  if(_wk_nvjpeg_mode AND NOT _wk_nvjpeg_mode STREQUAL "AUTO" AND NOT WK_HAVE_NVJPEG)
    message(FATAL_ERROR "WK_WITH_NVJPEG=ON but nvJPEG (nvjpeg.h and libnvjpeg) was not found in the CUDA toolkit")
  endif()
endif()
message(STATUS "warpkit: nvJPEG decode: ${WK_HAVE_NVJPEG}")

# libxcrypt (crypt_rn) for the password-hashing CPU path and reference: warpkit::libcrypt.
include(${CMAKE_CURRENT_LIST_DIR}/warpkit_libcrypt.cmake)

# ---- libgcrypt (optional): the reference IDEA for the agreement tests of wk-crypt (ECB and CTR).
# Debian CI has libgcrypt20-dev; the GPU machine has no headers, and then those tests are not
# compiled (WK_HAVE_GCRYPT off). Only tests link it; the library never does.
find_path(WK_GCRYPT_INCLUDE gcrypt.h)
find_library(WK_GCRYPT_LIBRARY gcrypt)
set(WK_HAVE_GCRYPT OFF)
if(WK_GCRYPT_INCLUDE AND WK_GCRYPT_LIBRARY)
  set(WK_HAVE_GCRYPT ON)
  add_library(wk_gcrypt INTERFACE IMPORTED)
  set_target_properties(wk_gcrypt PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${WK_GCRYPT_INCLUDE}"
    INTERFACE_LINK_LIBRARIES "${WK_GCRYPT_LIBRARY}"
    INTERFACE_COMPILE_DEFINITIONS WK_HAVE_GCRYPT=1)
endif()
message(STATUS "warpkit: libgcrypt IDEA reference for tests: ${WK_HAVE_GCRYPT}")
# ---- end libgcrypt

# MPI (optional): wk-image and wk-hash deal their work over the ranks of mpirun / srun.
set(WK_HAVE_MPI OFF)
if(NOT WARPKIT_MPI STREQUAL "OFF")
  # The C API from C++ (the project enables no C): MPI_CXX_SKIP_MPICXX keeps mpi.h from pulling
  # in the deprecated C++ bindings and the binaries from loading their library.
  set(MPI_CXX_SKIP_MPICXX ON)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(WK_HAVE_MPI ON)
  elseif(WARPKIT_MPI STREQUAL "ON")
    message(FATAL_ERROR "WARPKIT_MPI=ON but no MPI was found (Debian: libopenmpi-dev openmpi-bin)")
  endif()
endif()
find_program(WK_MPIEXEC NAMES mpirun mpiexec)
message(STATUS "warpkit: MPI: ${WK_HAVE_MPI}")
