# Every dependency is found the standard way, so the same tree configures against Debian's
# packages (CI, developer machines) and against ../shared/device-kit (the GPU machine).
find_package(CUDAToolkit REQUIRED)
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
