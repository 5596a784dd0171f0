#pragma once
// The pot file of `wk-hash audit`: the passwords found so far, one "hash:password" line per hash,
// as John the Ripper writes its john.pot. crypt strings never hold a ':', so a line splits at its
// first ':' and a password may contain any number of them.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "wk/hash/secret_input.hpp"

namespace wk::hash {

class PotFile {
 public:
  PotFile() = default;
  // The lines of `text` (taken over: wiped when the pot is destroyed). Empty lines are ignored; a
  // line with no ':' or an empty hash is an error (1-based line, why; never quoted) and left out.
  // When a hash has several lines, its first one counts.
  explicit PotFile(SecretBuffer text);
  // The file at `path`; one that does not exist is an empty pot (the audit creates it). Throws
  // wk::Error{io} naming the file when it cannot be read.
  static PotFile read(const std::filesystem::path& path);

  // The password found for `hash` (exactly that crypt string), or nullopt.
  std::optional<std::string_view> find(std::string_view hash) const;
  std::size_t size() const noexcept { return entries_.size(); }
  const std::vector<std::pair<std::size_t, std::string>>& errors() const noexcept { return errors_; }

 private:
  SecretBuffer text_;
  std::unordered_map<std::string_view, std::string_view> entries_;  // views into text_
  std::vector<std::pair<std::size_t, std::string>> errors_;
};

// Appends to a pot file: created with mode 0600 (it holds passwords) when it does not exist, an
// existing one kept as it is (a missing final newline is added first, so that no line is joined
// to the one before).
class PotWriter {
 public:
  // Throws wk::Error{io} naming the file.
  explicit PotWriter(const std::filesystem::path& path);
  ~PotWriter();
  PotWriter(const PotWriter&) = delete;
  PotWriter& operator=(const PotWriter&) = delete;
  // "hash:password\n" in one write(2), then fdatasync: a found password is on disk before the
  // audit goes on, whatever ends the process later. Throws wk::Error{io} (never quoting the line).
  void append(std::string_view hash, std::string_view password);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace wk::hash
