# The libFuzzer targets: tests/fuzz/fuzz_<name>.cpp, corpus/<name>/, dict/<name>.dict.
# Read by the fuzz project (tests/fuzz/CMakeLists.txt) and by the main project's ctest entries.
set(WK_FUZZ_TARGETS
  crypt_setting password_list shadow op_string jpeg_header image_decode idea_file idea_container resume_report)
