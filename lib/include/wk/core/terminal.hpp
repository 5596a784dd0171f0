#pragma once
// Secrets typed at the terminal: read from /dev/tty with echo off (restored on every path, a
// Ctrl-C, SIGTERM or SIGHUP during the read included), the prompt written to the terminal itself,
// so that standard input and output stay free for data.
#include <optional>
#include <string>

namespace wk {

// True when the process has a controlling terminal it can open for reading and writing.
bool has_terminal();

// Prints `prompt` on the terminal and reads one line without echo; the line is returned without its
// end of line. nullopt when there is no terminal. Throws wk::Error{io} when reading fails and
// wk::Error{usage} on end of input (Ctrl-D) before a line. The caller wipes the string when done.
std::optional<std::string> read_hidden_line(const std::string& prompt);

}  // namespace wk
