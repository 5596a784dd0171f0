// Word-mangling rules: the functions John the Ripper and hashcat share (hashcat's letter names and
// argument order), written from hashcat's documented behaviour. A position or count is one
// character, 0-9 then A-Z for 10-35; a position beyond the word leaves the word unchanged (hashcat),
// while the reject functions < > _ ! / ( ) = % drop the word. This file parses rules; what each
// function does is in hash/hd/rules.hpp, which the GPU runs as well.
#include "wk/hash/candidates.hpp"

#include "hash/hd/rules.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace wk::hash {
namespace {

// The arguments each function takes, one letter per argument: N a position or count, X a byte.
// nullopt for a character that is no supported function.
std::optional<std::string_view> arguments_of(char fn) {
  switch (fn) {
    case ':': case 'l': case 'u': case 'c': case 'C': case 't': case 'r': case 'd': case 'f':
    case '{': case '}': case '[': case ']': case 'q': case 'k': case 'K': case 'E':
      return "";
    case 'T': case 'p': case 'D': case '\'': case 'z': case 'Z': case 'L': case 'R': case '+':
    case '-': case '.': case ',': case 'y': case 'Y': case '<': case '>': case '_':
      return "N";
    case '$': case '^': case '@': case 'e': case '!': case '/': case '(': case ')':
      return "X";
    case 'x': case 'O': case '*':
      return "NN";
    case 'i': case 'o': case '=': case '%':
      return "NX";
    case 's':
      return "XX";
    default:
      return std::nullopt;
  }
}

std::optional<unsigned char> position_value(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned char>(c - '0');
  if (c >= 'A' && c <= 'Z') return static_cast<unsigned char>(c - 'A' + 10);
  return std::nullopt;
}

// A byte as an error message shows it: printable ASCII quoted, anything else as \xNN.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string{'\'', c, '\''};
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string{'\'', '\\', 'x', kHex[u >> 4], kHex[u & 15], '\''};
}

}  // namespace

std::optional<Rule> Rule::parse(std::string_view text, std::string* error) {
  const auto fail = [&](std::size_t column, const std::string& why) -> std::optional<Rule> {
    if (error) *error = "column " + std::to_string(column + 1) + ": " + why;
    return std::nullopt;
  };
  Rule rule;
  rule.text_ = std::string(text);
  std::size_t i = 0;
  while (i < text.size()) {
    const char fn = text[i];
    if (fn == ' ') {  // spaces separate functions; inside an argument a space is a byte like any other
      ++i;
      continue;
    }
    const auto args = arguments_of(fn);
    if (!args) return fail(i, shown(fn) + " is not a supported rule function");
    const std::size_t fn_column = i++;
    Op op{fn, 0, 0};
    for (std::size_t k = 0; k < args->size(); ++k, ++i) {
      const bool wants_position = (*args)[k] == 'N';
      const auto needs = [&] {
        return shown(fn) + " needs " + (wants_position ? "a position (0-9 or A-Z)" : "a character") + " as argument " +
               std::to_string(k + 1);
      };
      if (i >= text.size()) return fail(fn_column, needs() + ", but the rule ends");
      unsigned char value = static_cast<unsigned char>(text[i]);
      if (wants_position) {
        const auto pos = position_value(text[i]);
        if (!pos) return fail(i, needs() + ", not " + shown(text[i]));
        value = *pos;
      }
      (k == 0 ? op.a : op.b) = value;
    }
    rule.ops_.push_back(op);
  }
  return rule;
}

bool Rule::apply(std::string_view word, std::string& out) const {
  // A word longer than any candidate may still become one ("'8" cuts it): the buffer holds it.
  out.assign(word);
  out.resize(std::max<std::size_t>(word.size(), kMaxCandidateBytes + 1));
  const int n = hd::apply_rule(ops_.data(), int(ops_.size()), reinterpret_cast<std::uint8_t*>(out.data()), int(word.size()));
  out.resize(n < 0 ? 0 : std::size_t(n));
  return n >= 0;
}

std::vector<Rule> parse_rules(std::span<const std::string_view> lines,
                              std::vector<std::pair<std::size_t, std::string>>* errors) {
  std::vector<Rule> rules;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    std::string_view line = lines[k];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // rule files written on Windows
    if (line.find_first_not_of(' ') == std::string_view::npos || line.front() == '#') continue;
    std::string why;
    if (auto rule = Rule::parse(line, &why))
      rules.push_back(std::move(*rule));
    else if (errors)
      errors->emplace_back(k + 1, std::move(why));
  }
  return rules;
}

}  // namespace wk::hash
