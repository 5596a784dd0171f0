# -DWARPKIT_FUZZ=ON: the libFuzzer targets of tests/fuzz, built with clang as a project of their
# own (ExternalProject, in <build>/fuzz) once the domain libraries are built, and one ctest per
# target, label "fuzz", that runs it WK_FUZZ_SECONDS on its seed corpus (CI: 30 s each).
find_program(WK_FUZZ_CXX NAMES clang++-14 clang++)
if(NOT WK_FUZZ_CXX)
  message(FATAL_ERROR "WARPKIT_FUZZ=ON needs clang (Debian: clang-14, libfuzzer-14-dev, libclang-rt-14-dev)")
endif()
set(WK_FUZZ_SECONDS 30 CACHE STRING "ctest -L fuzz: seconds each fuzz target runs")
include(ExternalProject)
string(REPLACE ";" "|" _wk_fuzz_prefix_path "${CMAKE_PREFIX_PATH}")
include(${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_targets.cmake)
ExternalProject_Add(wk_fuzz
  SOURCE_DIR ${PROJECT_SOURCE_DIR}/tests/fuzz
  BINARY_DIR ${PROJECT_BINARY_DIR}/fuzz
  CMAKE_ARGS
    -DCMAKE_CXX_COMPILER=${WK_FUZZ_CXX}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
    -DWK_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    # The archives in link order: a domain before core, which every domain uses.
    "-DWK_LIB_ARCHIVES=$<TARGET_FILE:warpkit_image>|$<TARGET_FILE:warpkit_hash>|$<TARGET_FILE:warpkit_cipher>|$<TARGET_FILE:warpkit_core>"
    "-DCMAKE_PREFIX_PATH=${_wk_fuzz_prefix_path}"
    -DOpenCV_DIR=${OpenCV_DIR}
  LIST_SEPARATOR |
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  DEPENDS warpkit_image warpkit_hash warpkit_cipher warpkit_core)
if(WK_BUILD_TESTS)
  foreach(name ${WK_FUZZ_TARGETS})
    add_test(NAME "fuzz: ${name}"
      COMMAND bash ${PROJECT_SOURCE_DIR}/tests/fuzz/run_fuzz.sh ${name} ${PROJECT_BINARY_DIR}/fuzz/fuzz_${name} ${WK_FUZZ_SECONDS})
    math(EXPR timeout "${WK_FUZZ_SECONDS} + 120")
    set_tests_properties("fuzz: ${name}" PROPERTIES LABELS fuzz TIMEOUT ${timeout})
  endforeach()
endif()
