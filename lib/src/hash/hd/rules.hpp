#pragma once
// Word-mangling rule functions on a byte buffer, written once for host and device: Rule::apply
// (lib/src/hash/candidates/rules.cpp) and the GPU's candidate kernels (lib/src/hash/gpu/
// cross_kernels.cu) both run apply_rule, so CI tests what the GPU makes. The functions are the
// common subset of John the Ripper's and hashcat's languages, as hashcat documents them; the
// letters, argument kinds and the parser are in rules.cpp.
#include <cstdint>

#include "wk/core/hd.hpp"

namespace wk::hash::hd {

// The longest candidate a rule may make (check_password: crypt(3) takes at most 511 bytes).
inline constexpr int kMaxRuleBytes = 511;

// Case changes are ASCII only, as in hashcat: bytes >= 0x80 belong to no known encoding here.
WK_HD bool rule_is_lower(std::uint8_t c) { return c >= 'a' && c <= 'z'; }
WK_HD bool rule_is_upper(std::uint8_t c) { return c >= 'A' && c <= 'Z'; }
WK_HD std::uint8_t rule_lower(std::uint8_t c) { return rule_is_upper(c) ? std::uint8_t(c + 32) : c; }
WK_HD std::uint8_t rule_upper(std::uint8_t c) { return rule_is_lower(c) ? std::uint8_t(c - 32) : c; }
WK_HD std::uint8_t rule_toggled(std::uint8_t c) {
  return rule_is_lower(c) ? rule_upper(c) : rule_is_upper(c) ? rule_lower(c) : c;
}

// Bytes w[from, n) moved `by` places to the right (the caller checked the room).
WK_HD void rule_shift_right(std::uint8_t* w, int from, int n, int by) {
  for (int i = n - 1; i >= from; --i) w[i + by] = w[i];
}
// Bytes w[from + by, n) moved `by` places to the left, over w[from, from + by).
WK_HD void rule_shift_left(std::uint8_t* w, int from, int n, int by) {
  for (int i = from; i + by < n; ++i) w[i] = w[i + by];
}

// The functions `ops[0, count)` (each with members fn, a, b: the function's letter, then its
// position/count or byte arguments) applied in turn to the word w[0, n) in place. `w` holds at
// least max(n, kMaxRuleBytes + 1) bytes. Returns the candidate's length, or -1 when the rule
// rejects the word: a reject function, a step whose result is longer than kMaxRuleBytes -- after
// any function, even where a later one would cut it back ("p9 '8") --, or a NUL byte in the end.
// A position beyond the word leaves the word unchanged (hashcat).
template <class Op>
WK_HD int apply_rule(const Op* ops, int count, std::uint8_t* w, int n) {
  for (int k = 0; k < count; ++k) {
    const int a = ops[k].a, b = ops[k].b;
    const auto x = std::uint8_t(a), y = std::uint8_t(b);
    // Functions that lengthen the word check the result's length before writing it.
    auto grows_to = [&](int len) { return len <= kMaxRuleBytes; };
    switch (ops[k].fn) {
      case ':': break;
      case 'l': for (int i = 0; i < n; ++i) w[i] = rule_lower(w[i]); break;
      case 'u': for (int i = 0; i < n; ++i) w[i] = rule_upper(w[i]); break;
      case 'c':
        for (int i = 0; i < n; ++i) w[i] = i ? rule_lower(w[i]) : rule_upper(w[i]);
        break;
      case 'C':
        for (int i = 0; i < n; ++i) w[i] = i ? rule_upper(w[i]) : rule_lower(w[i]);
        break;
      case 't': for (int i = 0; i < n; ++i) w[i] = rule_toggled(w[i]); break;
      case 'T': if (a < n) w[a] = rule_toggled(w[a]); break;
      case 'r':
        for (int i = 0, j = n - 1; i < j; ++i, --j) {
          const std::uint8_t t = w[i];
          w[i] = w[j];
          w[j] = t;
        }
        break;
      case 'd':
      case 'p': {  // the word followed by 1 (d) or a (p) more copies of itself
        const int times = ops[k].fn == 'd' ? 1 : a;
        if (!grows_to(n * (times + 1))) return -1;
        for (int t = 1; t <= times; ++t)
          for (int i = 0; i < n; ++i) w[t * n + i] = w[i];
        n *= times + 1;
        break;
      }
      case 'f':
        if (!grows_to(2 * n)) return -1;
        for (int i = 0; i < n; ++i) w[n + i] = w[n - 1 - i];
        n *= 2;
        break;
      case '{':
        if (n) {
          const std::uint8_t first = w[0];
          rule_shift_left(w, 0, n, 1);
          w[n - 1] = first;
        }
        break;
      case '}':
        if (n) {
          const std::uint8_t last = w[n - 1];
          rule_shift_right(w, 0, n - 1, 1);
          w[0] = last;
        }
        break;
      case '$':
        if (!grows_to(n + 1)) return -1;
        w[n++] = x;
        break;
      case '^':
        if (!grows_to(n + 1)) return -1;
        rule_shift_right(w, 0, n++, 1);
        w[0] = x;
        break;
      case '[': if (n) rule_shift_left(w, 0, n--, 1); break;
      case ']': if (n) --n; break;
      case 'D': if (a < n) rule_shift_left(w, a, n--, 1); break;
      case 'x':
        if (a < n && a + b <= n) {
          rule_shift_left(w, 0, a + b, a);
          n = b;
        }
        break;
      case 'O':
        if (a < n && a + b <= n) {
          rule_shift_left(w, a, n, b);
          n -= b;
        }
        break;
      case 'i':
        if (a <= n) {
          if (!grows_to(n + 1)) return -1;
          rule_shift_right(w, a, n++, 1);
          w[a] = y;
        }
        break;
      case 'o': if (a < n) w[a] = y; break;
      case '\'': if (a < n) n = a; break;
      case 's': for (int i = 0; i < n; ++i) if (w[i] == x) w[i] = y; break;
      case '@': {
        int kept = 0;
        for (int i = 0; i < n; ++i)
          if (w[i] != x) w[kept++] = w[i];
        n = kept;
        break;
      }
      case 'z':  // a copies of the first byte in front
        if (n) {
          if (!grows_to(n + a)) return -1;
          rule_shift_right(w, 0, n, a);
          for (int i = 0; i < a; ++i) w[i] = w[a];
          n += a;
        }
        break;
      case 'Z':  // a copies of the last byte at the end
        if (n) {
          if (!grows_to(n + a)) return -1;
          for (int i = 0; i < a; ++i) w[n + i] = w[n - 1];
          n += a;
        }
        break;
      case 'q':  // every byte doubled
        if (!grows_to(2 * n)) return -1;
        for (int i = n - 1; i >= 0; --i) w[2 * i] = w[2 * i + 1] = w[i];
        n *= 2;
        break;
      case 'k': if (n >= 2) { const std::uint8_t t = w[0]; w[0] = w[1]; w[1] = t; } break;
      case 'K': if (n >= 2) { const std::uint8_t t = w[n - 2]; w[n - 2] = w[n - 1]; w[n - 1] = t; } break;
      case '*': if (a < n && b < n) { const std::uint8_t t = w[a]; w[a] = w[b]; w[b] = t; } break;
      case 'L': if (a < n) w[a] = std::uint8_t(w[a] << 1); break;
      case 'R': if (a < n) w[a] = std::uint8_t(w[a] >> 1); break;
      case '+': if (a < n) w[a] = std::uint8_t(w[a] + 1); break;
      case '-': if (a < n) w[a] = std::uint8_t(w[a] - 1); break;
      case '.': if (a + 1 < n) w[a] = w[a + 1]; break;
      case ',': if (a >= 1 && a < n) w[a] = w[a - 1]; break;
      case 'y':  // the first a bytes once more in front
        if (a <= n) {
          if (!grows_to(n + a)) return -1;
          rule_shift_right(w, 0, n, a);
          for (int i = 0; i < a; ++i) w[i] = w[a + i];
          n += a;
        }
        break;
      case 'Y':  // the last a bytes once more at the end
        if (a <= n) {
          if (!grows_to(n + a)) return -1;
          for (int i = 0; i < a; ++i) w[n + i] = w[n - a + i];
          n += a;
        }
        break;
      case 'E':
      case 'e': {  // lower case, then upper case the first letter and every letter after the separator
        const std::uint8_t sep = ops[k].fn == 'E' ? std::uint8_t(' ') : x;
        for (int i = 0; i < n; ++i) w[i] = rule_lower(w[i]);
        for (int i = 0; i < n; ++i)
          if (i == 0 || w[i - 1] == sep) w[i] = rule_upper(w[i]);
        break;
      }
      // Reject functions: the word goes on unchanged or not at all.
      case '<': if (n > a) return -1; break;
      case '>': if (n < a) return -1; break;
      case '_': if (n != a) return -1; break;
      case '!':
      case '/': {
        bool has = false;
        for (int i = 0; i < n; ++i) has |= w[i] == x;
        if (has != (ops[k].fn == '/')) return -1;
        break;
      }
      case '(': if (!(n && w[0] == x)) return -1; break;
      case ')': if (!(n && w[n - 1] == x)) return -1; break;
      case '=': if (!(a < n && w[a] == y)) return -1; break;
      case '%': {
        int seen = 0;
        for (int i = 0; i < n; ++i) seen += w[i] == y;
        if (seen < a) return -1;
        break;
      }
      default: return -1;  // the parser admits no other function
    }
    if (n > kMaxRuleBytes) return -1;
  }
  if (n > kMaxRuleBytes) return -1;
  for (int i = 0; i < n; ++i)
    if (w[i] == 0) return -1;
  return n;
}

}  // namespace wk::hash::hd
