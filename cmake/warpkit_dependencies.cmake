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

# libxcrypt (crypt_rn) for the password-hashing CPU path and reference.
find_library(WK_LIBCRYPT crypt)
find_path(WK_LIBCRYPT_INCLUDE crypt.h)

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
