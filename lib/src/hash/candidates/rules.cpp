// Word-mangling rules: the functions John the Ripper and hashcat share (hashcat's letter names and
// argument order), written from hashcat's documented behaviour. A position or count is one
// character, 0-9 then A-Z for 10-35; a position beyond the word leaves the word unchanged (hashcat),
// while the reject functions < > _ ! / ( ) = % drop the word.
#include "wk/hash/candidates.hpp"

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

// Case changes are ASCII only, as in hashcat: bytes >= 0x80 belong to no known encoding here.
bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
char to_lower(char c) { return is_upper(static_cast<unsigned char>(c)) ? static_cast<char>(c + 32) : c; }
char to_upper(char c) { return is_lower(static_cast<unsigned char>(c)) ? static_cast<char>(c - 32) : c; }
char toggled(char c) {
  const auto u = static_cast<unsigned char>(c);
  return is_lower(u) ? to_upper(c) : is_upper(u) ? to_lower(c) : c;
}

void lower_all(std::string& w) { std::transform(w.begin(), w.end(), w.begin(), to_lower); }
void upper_all(std::string& w) { std::transform(w.begin(), w.end(), w.begin(), to_upper); }

// The word followed by `times` more copies of itself (d, pN).
void append_copies(std::string& w, std::size_t times) {
  const std::size_t n = w.size();
  w.reserve(n * (times + 1));
  for (std::size_t k = 0; k < times; ++k) w.append(w.data(), n);
}

// Lowercase, then uppercase the first letter and every letter after `separator` (E, eX).
void title_case(std::string& w, char separator) {
  lower_all(w);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (i == 0 || w[i - 1] == separator) w[i] = to_upper(w[i]);
}

// One function applied to `w` in place; false when it rejects the word.
bool mangle(char fn, unsigned char a, unsigned char b, std::string& w) {
  const std::size_t n = w.size();
  const char x = static_cast<char>(a), y = static_cast<char>(b);
  switch (fn) {
    case ':': break;
    case 'l': lower_all(w); break;
    case 'u': upper_all(w); break;
    case 'c': lower_all(w); if (n) w[0] = to_upper(w[0]); break;
    case 'C': upper_all(w); if (n) w[0] = to_lower(w[0]); break;
    case 't': std::transform(w.begin(), w.end(), w.begin(), toggled); break;
    case 'T': if (a < n) w[a] = toggled(w[a]); break;
    case 'r': std::reverse(w.begin(), w.end()); break;
    case 'd': append_copies(w, 1); break;
    case 'p': append_copies(w, a); break;
    case 'f': w.resize(2 * n); std::reverse_copy(w.begin(), w.begin() + n, w.begin() + n); break;
    case '{': if (n) std::rotate(w.begin(), w.begin() + 1, w.end()); break;
    case '}': if (n) std::rotate(w.begin(), w.end() - 1, w.end()); break;
    case '$': w.push_back(x); break;
    case '^': w.insert(w.begin(), x); break;
    case '[': if (n) w.erase(0, 1); break;
    case ']': if (n) w.pop_back(); break;
    case 'D': if (a < n) w.erase(a, 1); break;
    case 'x': if (a < n && a + b <= n) w = w.substr(a, b); break;
    case 'O': if (a < n && a + b <= n) w.erase(a, b); break;
    case 'i': if (a <= n) w.insert(w.begin() + a, y); break;
    case 'o': if (a < n) w[a] = y; break;
    case '\'': if (a < n) w.resize(a); break;
    case 's': std::replace(w.begin(), w.end(), x, y); break;
    case '@': w.erase(std::remove(w.begin(), w.end(), x), w.end()); break;
    case 'z': if (n) w.insert(0, a, w[0]); break;
    case 'Z': if (n) w.append(a, w[n - 1]); break;
    case 'q':
      w.resize(2 * n);
      for (std::size_t i = n; i-- > 0;) w[2 * i] = w[2 * i + 1] = w[i];
      break;
    case 'k': if (n >= 2) std::swap(w[0], w[1]); break;
    case 'K': if (n >= 2) std::swap(w[n - 2], w[n - 1]); break;
    case '*': if (a < n && b < n) std::swap(w[a], w[b]); break;
    case 'L': if (a < n) w[a] = static_cast<char>(static_cast<unsigned char>(w[a]) << 1); break;
    case 'R': if (a < n) w[a] = static_cast<char>(static_cast<unsigned char>(w[a]) >> 1); break;
    case '+': if (a < n) w[a] = static_cast<char>(static_cast<unsigned char>(w[a]) + 1); break;
    case '-': if (a < n) w[a] = static_cast<char>(static_cast<unsigned char>(w[a]) - 1); break;
    case '.': if (a + 1u < n) w[a] = w[a + 1]; break;
    case ',': if (a >= 1 && a < n) w[a] = w[a - 1]; break;
    case 'y': if (a <= n) w.insert(0, w, 0, a); break;
    case 'Y': if (a <= n) w.append(w, n - a, a); break;
    case 'E': title_case(w, ' '); break;
    case 'e': title_case(w, x); break;
    // Reject functions: the word goes on unchanged or not at all.
    case '<': return n <= a;
    case '>': return n >= a;
    case '_': return n == a;
    case '!': return w.find(x) == std::string::npos;
    case '/': return w.find(x) != std::string::npos;
    case '(': return n && w[0] == x;
    case ')': return n && w[n - 1] == x;
    case '=': return a < n && w[a] == y;
    case '%': return static_cast<std::size_t>(std::count(w.begin(), w.end(), y)) >= a;
    default: return false;  // parse() admits no other function
  }
  return true;
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
  out.assign(word);
  for (const Op& op : ops_) {
    if (!mangle(op.fn, op.a, op.b, out)) return false;
    // Checked after every function, not only at the end: a step that makes more than any candidate
    // may have rejects the word even where a later function would cut it back ("p9 '8"), which
    // bounds what repeated duplications can allocate.
    if (out.size() > kMaxCandidateBytes) return false;
  }
  return out.size() <= kMaxCandidateBytes && out.find('\0') == std::string::npos;
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
