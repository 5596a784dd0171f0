#pragma once
#include <string>

// The footer of wk-image --help: examples, what happens to files, speed, the report, MPI,
// interrupting, exit status, and the operations with their arguments.
std::string wk_image_help_footer();
