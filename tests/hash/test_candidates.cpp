// Password candidates: every rule function against known input/output pairs (hashcat's documented
// examples on "p@ssW0rd" where it gives them), positions out of range, reject functions, parse
// errors; masks (charset sizes, enumeration order, custom charsets, prefixes); the sources' index
// arithmetic; and the shipped rule file.
#include <catch2/catch.hpp>

#include <array>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/error.hpp"
#include "wk/hash/candidates.hpp"

using namespace wk::hash;

namespace {

Rule parsed(std::string_view text) {
  std::string error;
  auto rule = Rule::parse(text, &error);
  INFO("rule " << text << ": " << error);
  REQUIRE(rule.has_value());
  return *rule;
}

// What `rule` makes of `word`, or "<rejected>".
std::string applied(std::string_view rule, std::string_view word) {
  std::string out;
  return parsed(rule).apply(word, out) ? out : "<rejected>";
}

std::string parse_error(std::string_view text) {
  std::string error;
  CHECK_FALSE(Rule::parse(text, &error).has_value());
  return error;
}

std::string candidate(const Mask& mask, std::uint64_t index) {
  std::string out(mask.length(), '\0');
  mask.candidate(index, out.data());
  return out;
}

std::string got(const CandidateSource& source, std::uint64_t index) {
  std::string out;
  return source.get(index, out) ? out : "<none>";
}

// Every candidate of a small source; "<none>" for the skipped ones.
std::vector<std::string> all_of(const CandidateSource& source) {
  std::vector<std::string> all;
  for (std::uint64_t k = 0; k < source.size(); ++k) all.push_back(got(source, k));
  return all;
}

bool all_distinct(const std::vector<std::string>& v) { return std::set<std::string>(v.begin(), v.end()).size() == v.size(); }

struct Example {
  const char* rule;
  const char* word;
  const char* expected;
};

}  // namespace

TEST_CASE("every rule function makes the documented output", "[hash][candidates]") {
  const Example examples[] = {
      {":", "p@ssW0rd", "p@ssW0rd"},
      {"l", "p@ssW0rd", "p@ssw0rd"},
      {"u", "p@ssW0rd", "P@SSW0RD"},
      {"c", "p@ssW0rd", "P@ssw0rd"},
      {"C", "p@ssW0rd", "p@SSW0RD"},
      {"t", "p@ssW0rd", "P@SSw0RD"},
      {"T3", "p@ssW0rd", "p@sSW0rd"},
      {"r", "p@ssW0rd", "dr0Wss@p"},
      {"d", "p@ssW0rd", "p@ssW0rdp@ssW0rd"},
      {"p2", "p@ssW0rd", "p@ssW0rdp@ssW0rdp@ssW0rd"},
      {"f", "p@ssW0rd", "p@ssW0rddr0Wss@p"},
      {"{", "p@ssW0rd", "@ssW0rdp"},
      {"}", "p@ssW0rd", "dp@ssW0r"},
      {"$1", "p@ssW0rd", "p@ssW0rd1"},
      {"^1", "p@ssW0rd", "1p@ssW0rd"},
      {"[", "p@ssW0rd", "@ssW0rd"},
      {"]", "p@ssW0rd", "p@ssW0r"},
      {"D3", "p@ssW0rd", "p@sW0rd"},
      {"x04", "p@ssW0rd", "p@ss"},
      {"O12", "p@ssW0rd", "psW0rd"},
      {"i4!", "p@ssW0rd", "p@ss!W0rd"},
      {"o3$", "p@ssW0rd", "p@s$W0rd"},
      {"'6", "p@ssW0rd", "p@ssW0"},
      {"ss$", "p@ssW0rd", "p@$$W0rd"},
      {"@s", "p@ssW0rd", "p@W0rd"},
      {"z2", "p@ssW0rd", "ppp@ssW0rd"},
      {"Z2", "p@ssW0rd", "p@ssW0rddd"},
      {"q", "p@ssW0rd", "pp@@ssssWW00rrdd"},
      {"k", "p@ssW0rd", "@pssW0rd"},
      {"K", "p@ssW0rd", "p@ssW0dr"},
      {"*34", "p@ssW0rd", "p@sWs0rd"},
      {"L2", "p@ssW0rd", "p@\xe6sW0rd"},  // 's' 0x73 << 1
      {"R2", "p@ssW0rd", "p@9sW0rd"},     // 's' 0x73 >> 1
      {"+2", "p@ssW0rd", "p@tsW0rd"},
      {"-1", "p@ssW0rd", "p?ssW0rd"},
      {".1", "p@ssW0rd", "psssW0rd"},
      {",1", "p@ssW0rd", "ppssW0rd"},
      {"y2", "p@ssW0rd", "p@p@ssW0rd"},
      {"Y2", "p@ssW0rd", "p@ssW0rdrd"},
      {"E", "p@ssW0rd w0rld", "P@ssw0rd W0rld"},
      {"e-", "p@ssW0rd-w0rld", "P@ssw0rd-W0rld"},
      // Positions above 9 are letters; arguments of two positions or a position and a byte.
      {"TA", "abcdefghijklm", "abcdefghijKlm"},
      {"xA2", "abcdefghijklm", "kl"},
      {"iB-", "abcdefghijklm", "abcdefghijk-lm"},
  };
  for (const Example& e : examples) {
    CAPTURE(e.rule, e.word);
    CHECK(applied(e.rule, e.word) == e.expected);
  }
}

TEST_CASE("rules chain functions left to right and ignore spaces between them", "[hash][candidates]") {
  CHECK(applied("c $1 $2", "password") == "Password12");
  CHECK(applied("c$1$2", "password") == "Password12");
  CHECK(applied("sa@ so0 $!", "password") == "p@ssw0rd!");
  CHECK(applied("r c", "drow") == "Word");
  CHECK(applied("] ] ]", "password") == "passw");
  // A space as an argument is a byte like any other.
  CHECK(applied("$ $1", "pass") == "pass 1");
  CHECK(applied("s _", "a b c") == "a_b_c");
  CHECK(applied("", "same") == "same");
  CHECK(parsed(" c $1 ").text() == " c $1 ");
}

TEST_CASE("a position beyond the word leaves it unchanged", "[hash][candidates]") {
  const Example examples[] = {
      {"T3", "abc", "abc"},   {"D3", "abc", "abc"},   {"x13", "abc", "abc"}, {"x30", "abc", "abc"},
      {"O13", "abc", "abc"},  {"i4X", "abc", "abc"},  {"o3X", "abc", "abc"}, {"'3", "abc", "abc"},
      {"*03", "abc", "abc"},  {"*30", "abc", "abc"},  {"L3", "abc", "abc"},  {"R3", "abc", "abc"},
      {"+3", "abc", "abc"},   {"-3", "abc", "abc"},   {".2", "abc", "abc"},  {",0", "abc", "abc"},
      {",3", "abc", "abc"},   {"y4", "abc", "abc"},   {"Y4", "abc", "abc"},  {"k", "a", "a"},
      {"K", "a", "a"},        {"{", "", ""},          {"}", "", ""},         {"[", "", ""},
      {"]", "", ""},          {"z2", "", ""},         {"Z2", "", ""},        {"c", "", ""},
  };
  for (const Example& e : examples) {
    CAPTURE(e.rule, e.word);
    CHECK(applied(e.rule, e.word) == e.expected);
  }
  // The last valid positions do change it.
  CHECK(applied("i3X", "abc") == "abcX");
  CHECK(applied("x12", "abc") == "bc");
  CHECK(applied("y3", "abc") == "abcabc");
  CHECK(applied("Y3", "abc") == "abcabc");
  CHECK(applied(",2", "abc") == "abb");
  CHECK(applied(".1", "abc") == "acc");
}

TEST_CASE("reject functions drop the words they name and keep the rest", "[hash][candidates]") {
  const Example examples[] = {
      {"<G", "p@ssW0rd", "p@ssW0rd"}, {"<8", "p@ssW0rd", "p@ssW0rd"}, {"<7", "p@ssW0rd", "<rejected>"},
      {">8", "p@ssW0rd", "p@ssW0rd"}, {">9", "p@ssW0rd", "<rejected>"}, {"_8", "p@ssW0rd", "p@ssW0rd"},
      {"_7", "p@ssW0rd", "<rejected>"}, {"!z", "p@ssW0rd", "p@ssW0rd"}, {"!@", "p@ssW0rd", "<rejected>"},
      {"/p", "p@ssW0rd", "p@ssW0rd"}, {"/z", "p@ssW0rd", "<rejected>"}, {"(p", "p@ssW0rd", "p@ssW0rd"},
      {"(@", "p@ssW0rd", "<rejected>"}, {")d", "p@ssW0rd", "p@ssW0rd"}, {")r", "p@ssW0rd", "<rejected>"},
      {"=1@", "p@ssW0rd", "p@ssW0rd"}, {"=1a", "p@ssW0rd", "<rejected>"}, {"=8d", "p@ssW0rd", "<rejected>"},
      {"%2s", "p@ssW0rd", "p@ssW0rd"}, {"%3s", "p@ssW0rd", "<rejected>"}, {"(x", "", "<rejected>"},
      {")x", "", "<rejected>"},
  };
  for (const Example& e : examples) {
    CAPTURE(e.rule, e.word);
    CHECK(applied(e.rule, e.word) == e.expected);
  }
  // A reject function sees the word as the functions before it left it.
  CHECK(applied("$1 <8", "p@ssW0rd") == "<rejected>");
  CHECK(applied("] <7", "p@ssW0rd") == "p@ssW0r");
  CHECK(applied("sa@ /@ $1", "password") == "p@ssword1");
}

TEST_CASE("rule results longer than a candidate or holding a NUL are rejected", "[hash][candidates]") {
  const std::string w510(510, 'w');
  CHECK(applied("$a", w510) == w510 + "a");
  CHECK(applied("$a $b", w510) == "<rejected>");
  CHECK(applied("d", std::string(256, 'w')) == "<rejected>");
  CHECK(applied("d", std::string(255, 'w')) == std::string(510, 'w'));
  CHECK(applied(":", std::string(512, 'w')) == "<rejected>");
  CHECK(applied("'8", std::string(512, 'w')) == std::string(8, 'w'));
  // Too long on the way is too long, even if a later function would cut it back.
  CHECK(applied("pZ '5", std::string(100, 'w')) == "<rejected>");
  CHECK(applied("-0", "\x01" "abc") == "<rejected>");
  CHECK(applied("L0", "\x80" "abc") == "<rejected>");
}

TEST_CASE("malformed rules are refused naming the column and the function", "[hash][candidates]") {
  CHECK_THAT(parse_error("T"), Catch::Contains("column 1") && Catch::Contains("'T'") && Catch::Contains("ends"));
  CHECK_THAT(parse_error("Tx"), Catch::Contains("column 2") && Catch::Contains("'T'") && Catch::Contains("'x'"));
  CHECK_THAT(parse_error("c $1 X"), Catch::Contains("column 6") && Catch::Contains("'X'"));
  CHECK_THAT(parse_error("i4"), Catch::Contains("column 1") && Catch::Contains("argument 2"));
  CHECK_THAT(parse_error("xa1"), Catch::Contains("column 2") && Catch::Contains("'x'"));
  CHECK_THAT(parse_error("s"), Catch::Contains("'s'"));
  CHECK_THAT(parse_error("$1\x01"), Catch::Contains("column 3") && Catch::Contains("\\x01"));
  CHECK_THAT(parse_error("<a"), Catch::Contains("position"));
  // Nothing is written when the caller does not ask.
  CHECK_FALSE(Rule::parse("Q").has_value());
}

TEST_CASE("rule files skip comments and blank lines and report bad lines by number", "[hash][candidates]") {
  const std::vector<std::string_view> lines = {"# a comment", "", ":", "c $1\r", "   ", "T", "u", "$"};
  std::vector<std::pair<std::size_t, std::string>> errors;
  const std::vector<Rule> rules = parse_rules(lines, &errors);
  REQUIRE(rules.size() == 3);
  CHECK(rules[0].text() == ":");
  CHECK(rules[1].text() == "c $1");
  CHECK(rules[2].text() == "u");
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].first == 6);
  CHECK_THAT(errors[0].second, Catch::Contains("'T'"));
  CHECK(errors[1].first == 8);
  CHECK(parse_rules(lines).size() == 3);
}

TEST_CASE("the shipped rule file parses and every rule makes a candidate", "[hash][candidates]") {
  std::ifstream in(WK_RULES_DIR "/warpkit64.rule");
  REQUIRE(in);
  std::vector<std::string> text;
  for (std::string line; std::getline(in, line);) text.push_back(line);
  const std::vector<std::string_view> lines(text.begin(), text.end());
  std::vector<std::pair<std::size_t, std::string>> errors;
  const std::vector<Rule> rules = parse_rules(lines, &errors);
  for (const auto& [line, why] : errors) FAIL_CHECK("warpkit64.rule line " << line << ": " << why);
  CHECK(rules.size() >= 60);
  CHECK(rules.size() <= 90);
  REQUIRE_FALSE(text.empty());
  CHECK(text.front().rfind("#", 0) == 0);  // the header comment

  // Every rule makes a candidate of an ordinary word, and no two rules do the same thing to all
  // of these words (a rule file with redundant lines tries candidates twice).
  const std::string_view probes[] = {"password", "Summer day", "letmein", "ABC12", "sol"};
  std::set<std::vector<std::string>> behaviours;
  for (const Rule& rule : rules) {
    CAPTURE(rule.text());
    std::vector<std::string> outputs;
    for (const std::string_view word : probes) {
      std::string out;
      CHECK(rule.apply(word, out));
      outputs.push_back(out);
    }
    CHECK(behaviours.insert(outputs).second);
  }
}

TEST_CASE("masks have the documented charset sizes", "[hash][candidates]") {
  CHECK(Mask::parse("?l").size() == 26);
  CHECK(Mask::parse("?u").size() == 26);
  CHECK(Mask::parse("?d").size() == 10);
  CHECK(Mask::parse("?s").size() == 33);
  CHECK(Mask::parse("?a").size() == 95);
  CHECK(Mask::parse("?h").size() == 16);
  CHECK(Mask::parse("?H").size() == 16);
  CHECK(Mask::parse("?b").size() == 256);
  CHECK(Mask::parse("?l?d").size() == 260);
  CHECK(Mask::parse("pass?d?d").size() == 100);
  CHECK(Mask::parse("pass?d?d").length() == 6);
  CHECK(Mask::parse("??").size() == 1);
  CHECK(Mask::parse("?a?a?a?a").size() == 95ull * 95 * 95 * 95);
  CHECK(Mask::parse("?b?b?b?b?b?b?b?b").size() == std::numeric_limits<std::uint64_t>::max());  // 2^64 saturates
  CHECK(Mask::parse("?b?b?b?b?b?b?b?b?b?d").size() == std::numeric_limits<std::uint64_t>::max());
  CHECK(Mask::parse("?b?b?b?b?b?b?b").size() == (std::uint64_t{1} << 56));
}

TEST_CASE("mask charsets hold exactly the documented bytes", "[hash][candidates]") {
  const auto chars_of = [](std::string_view text) {
    const Mask m = Mask::parse(text);
    std::string all;
    for (std::uint64_t k = 0; k < m.size(); ++k) all += candidate(m, k);
    return all;
  };
  CHECK(chars_of("?l") == "abcdefghijklmnopqrstuvwxyz");
  CHECK(chars_of("?u") == "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  CHECK(chars_of("?d") == "0123456789");
  CHECK(chars_of("?h") == "0123456789abcdef");
  CHECK(chars_of("?H") == "0123456789ABCDEF");
  CHECK(chars_of("??") == "?");
  std::string printable, specials;
  for (int c = 0x20; c < 0x7f; ++c) {
    printable += char(c);
    if (!std::isalnum(c)) specials += char(c);
  }
  const std::string s = chars_of("?s"), a = chars_of("?a"), b = chars_of("?b");
  CHECK(std::set<char>(s.begin(), s.end()) == std::set<char>(specials.begin(), specials.end()));
  CHECK(s.size() == specials.size());
  CHECK(std::set<char>(a.begin(), a.end()) == std::set<char>(printable.begin(), printable.end()));
  CHECK(a.size() == 95);
  CHECK(std::set<char>(b.begin(), b.end()).size() == 256);
}

TEST_CASE("mask candidates enumerate with the last position fastest", "[hash][candidates]") {
  const Mask dd = Mask::parse("?d?d");
  CHECK(candidate(dd, 0) == "00");
  CHECK(candidate(dd, 1) == "01");
  CHECK(candidate(dd, 10) == "10");
  CHECK(candidate(dd, 99) == "99");
  const Mask ld = Mask::parse("?l?d");
  CHECK(candidate(ld, 0) == "a0");
  CHECK(candidate(ld, 11) == "b1");
  CHECK(candidate(ld, 259) == "z9");
  const Mask lit = Mask::parse("pw?d!??");
  CHECK(lit.length() == 5);
  CHECK(candidate(lit, 7) == "pw7!?");
  const Mask ad = Mask::parse("?a");
  CHECK(candidate(ad, 0) == "a");
  CHECK(candidate(ad, 26) == "A");
  CHECK(candidate(ad, 52) == "0");
}

TEST_CASE("custom charsets expand placeholders and keep each byte once", "[hash][candidates]") {
  const Mask m = Mask::parse("?1?2", {"abc", "?d"});
  CHECK(m.size() == 30);
  CHECK(candidate(m, 0) == "a0");
  CHECK(candidate(m, 29) == "c9");
  CHECK(Mask::parse("?1", {"?l?d"}).size() == 36);
  CHECK(Mask::parse("?1", {"?l?la"}).size() == 26);  // duplicates would repeat candidates
  CHECK(Mask::parse("?3?4", {"", "", "xy", "??z"}).size() == 4);
  CHECK(candidate(Mask::parse("?3?4", {"", "", "xy", "??z"}), 3) == "yz");
  CHECK(candidate(Mask::parse("?4", {"", "", "", "??z"}), 0) == "?");
}

TEST_CASE("malformed masks are refused naming the column", "[hash][candidates]") {
  const auto usage_error = [](std::string_view mask, const std::array<std::string, 4>& custom = {}) -> std::string {
    try {
      Mask::parse(mask, custom);
    } catch (const wk::Error& e) {
      CHECK(e.category() == wk::ErrorCategory::usage);
      return e.what();
    }
    FAIL_CHECK("accepted: " << mask);
    return {};
  };
  CHECK_THAT(usage_error("ab?x"), Catch::Contains("column 3") && Catch::Contains("?x"));
  CHECK_THAT(usage_error("abc?"), Catch::Contains("column 4"));
  CHECK_THAT(usage_error("?d?1"), Catch::Contains("column 3") && Catch::Contains("custom charset 1"));
  CHECK_THAT(usage_error("?2", {"abc"}), Catch::Contains("custom charset 2"));
  CHECK_THAT(usage_error("?1", {"a?q"}), Catch::Contains("custom charset 1") && Catch::Contains("column 2"));
  CHECK_THAT(usage_error("?1", {"?2"}), Catch::Contains("custom charset 1"));
  CHECK_THAT(usage_error(""), Catch::Contains("empty"));
  CHECK_THAT(usage_error(std::string(kMaxCandidateBytes + 1, 'x')), Catch::Contains("512 positions"));
}

TEST_CASE("a mask prefix keeps its first positions", "[hash][candidates]") {
  const Mask m = Mask::parse("?d?l?u");
  const Mask p = m.prefix(2);
  CHECK(p.length() == 2);
  CHECK(p.size() == 260);
  CHECK(candidate(p, 27) == "1b");
  CHECK(m.prefix(3).size() == m.size());
  CHECK(m.prefix(0).size() == 1);
  CHECK(m.size() == 10 * 26 * 26);
}

TEST_CASE("wordlist and rules sources index words and rules", "[hash][candidates]") {
  const std::vector<std::string_view> words = {"abc", "xyz"};
  const std::vector<Rule> rules = {parsed(":"), parsed("u"), parsed("$1"), parsed("<2")};

  const auto plain = wordlist_source(words);
  CHECK(all_of(*plain) == std::vector<std::string>{"abc", "xyz"});

  const auto mangled = rules_source(words, rules);
  REQUIRE(mangled->size() == 8);
  // index = word * rules + rule: a word's variants side by side; the rejecting rule makes none.
  CHECK(all_of(*mangled) ==
        std::vector<std::string>{"abc", "ABC", "abc1", "<none>", "xyz", "XYZ", "xyz1", "<none>"});
  CHECK(got(*mangled, 1 * 4 + 2) == "xyz1");

  const auto no_rules = rules_source(words, {});
  CHECK(all_of(*no_rules) == std::vector<std::string>{"abc", "xyz"});

  const std::vector<Rule> distinct_rules = {parsed(":"), parsed("u"), parsed("r"), parsed("$!")};
  CHECK(all_distinct(all_of(*rules_source(words, distinct_rules))));
}

TEST_CASE("sources skip words that cannot be candidates", "[hash][candidates]") {
  const std::string long_word(kMaxCandidateBytes + 1, 'w'), longest(kMaxCandidateBytes, 'w');
  const std::string with_nul("a\0b", 3);
  const std::vector<std::string_view> words = {long_word, with_nul, longest};
  CHECK(all_of(*wordlist_source(words)) == std::vector<std::string>{"<none>", "<none>", longest});
  const Mask d = Mask::parse("?d");
  const auto hybrid = hybrid_source(words, d, false);
  CHECK(got(*hybrid, 0) == "<none>");
  CHECK(got(*hybrid, 2 * 10 + 3) == "<none>");  // 511 + 1 bytes
  const std::vector<std::string_view> short_words = {std::string_view(longest).substr(1)};
  CHECK(got(*hybrid_source(short_words, d, true), 4) == "4" + longest.substr(1));
  // ?b makes a NUL byte at index 0: no candidate (a C string would cut it to a shorter one).
  const auto bytes = mask_source(Mask::parse("?b"), 1);
  CHECK(got(*bytes, 0) == "<none>");
  CHECK(got(*bytes, 65) == "A");
}

TEST_CASE("increment mask sources run the shortest prefixes first", "[hash][candidates]") {
  const Mask m = Mask::parse("?d?d?d");
  const auto inc = mask_source(m, 1);
  REQUIRE(inc->size() == 10 + 100 + 1000);
  CHECK(got(*inc, 0) == "0");
  CHECK(got(*inc, 9) == "9");
  CHECK(got(*inc, 10) == "00");
  CHECK(got(*inc, 109) == "99");
  CHECK(got(*inc, 110) == "000");
  CHECK(got(*inc, 1109) == "999");
  CHECK(all_distinct(all_of(*inc)));

  const auto from2 = mask_source(m, 2);
  CHECK(from2->size() == 1100);
  CHECK(got(*from2, 0) == "00");
  CHECK(mask_source(m, 3)->size() == 1000);
  CHECK(mask_source(m, 7)->size() == 1000);  // past the mask's length: the mask alone
  CHECK(mask_source(m, 0)->size() == 1110);  // no empty candidate

  const auto ld = mask_source(Mask::parse("?l?d", {}), 1);
  CHECK(ld->size() == 26 + 260);
  CHECK(all_distinct(all_of(*ld)));
}

TEST_CASE("mask sources offer their candidates as runs of one mask, up to the limit and the length's end", "[hash][candidates]") {
  const Mask m = Mask::parse("?d?1?d", {"xy"});
  const auto inc = mask_source(m, 1);  // 10, then 20, then 200 candidates
  REQUIRE(inc->size() == 230);
  // Every run's candidates are the source's, and runs end where a length does.
  for (const std::uint64_t limit : {1u, 7u, 64u, 1000u}) {
    CAPTURE(limit);
    std::uint64_t at = 0;
    std::vector<std::uint64_t> ends;
    while (at < inc->size()) {
      const CandidateRun run = inc->candidate_run(at, limit);
      REQUIRE(run.mask != nullptr);
      REQUIRE(run.count >= 1);
      REQUIRE(run.count <= limit);
      for (std::uint64_t j = 0; j < run.count; ++j) REQUIRE(candidate(*run.mask, run.first + j) == got(*inc, at + j));
      at += run.count;
      ends.push_back(at);
    }
    CHECK(at == inc->size());
    if (limit == 1000) CHECK(ends == std::vector<std::uint64_t>{10, 30, 230});
  }
  CHECK(inc->candidate_run(230, 5).empty());  // past the end: no run

  // A range of it: the same runs, renumbered, clamped to the range's end.
  const auto range = range_source(*inc, 25, 40);
  const CandidateRun r = range->candidate_run(0, 100);
  REQUIRE(r.mask != nullptr);
  CHECK(r.count == 5);  // the rest of the two-position prefix
  CHECK(candidate(*r.mask, r.first) == got(*inc, 25));
  const CandidateRun r2 = range->candidate_run(5, 100);
  REQUIRE(r2.mask != nullptr);
  CHECK(r2.count == 10);  // up to the range's end
  CHECK(candidate(*r2.mask, r2.first + 9) == got(*inc, 39));

  // ?b makes candidates with a NUL byte, which are no passwords: no runs. Nor plain words or
  // hybrids (rules: below).
  CHECK(mask_source(Mask::parse("?b?d"), 2)->candidate_run(0, 10).empty());
  CHECK(Mask::parse("?b").makes_nul());
  CHECK_FALSE(Mask::parse("?a?1", {"?h"}).makes_nul());
  const std::vector<std::string_view> words = {"pw"};
  CHECK(wordlist_source(words)->candidate_run(0, 1).empty());
  CHECK(hybrid_source(words, m, false)->candidate_run(0, 10).empty());
}

TEST_CASE("rules sources offer words through rules as runs, stopping before a word too long for the device", "[hash][candidates]") {
  const std::string long_word(kMaxCandidateBytes + 1, 'w');
  const std::vector<std::string_view> words = {"abc", "xyz", long_word, "pw"};
  const std::vector<Rule> rules = {parsed(":"), parsed("u"), parsed("$1"), parsed("<2"), parsed("'3")};
  const auto source = rules_source(words, rules);  // 20 candidates; the long word's are 10 .. 14
  const CandidateRun run = source->candidate_run(1, 100);
  REQUIRE_FALSE(run.empty());
  CHECK(run.mask == nullptr);
  CHECK(run.first == 1);
  CHECK(run.count == 9);  // up to the long word
  std::string out;
  for (std::uint64_t j = 0; j < run.count; ++j) {
    CAPTURE(j);
    CHECK((run.get(j, out) ? out : "<none>") == got(*source, 1 + j));
  }
  CHECK(got(*source, 4) == "abc");  // "'3" keeps a word of 3 bytes
  CHECK(got(*source, 3) == "<none>");
  // The long word's candidates go as strings: a rule may still cut it to one.
  CHECK(source->candidate_run(10, 5).empty());
  CHECK(got(*source, 14) == "www");
  CHECK(got(*source, 10) == "<none>");
  CHECK(source->candidate_run(15, 100).count == 5);
  CHECK(source->candidate_run(3, 4).count == 4);  // the limit
  CHECK(source->candidate_run(20, 1).empty());    // past the end
  // A range of it: renumbered, clamped to the range's end.
  const auto range = range_source(*source, 2, 8);
  const CandidateRun r = range->candidate_run(0, 100);
  CHECK(r.first == 2);
  CHECK(r.count == 6);
  CHECK(r.words.size() == words.size());
  CHECK(r.rules.size() == rules.size());
}

TEST_CASE("hybrid sources put the mask after or before each word", "[hash][candidates]") {
  const std::vector<std::string_view> words = {"pw", "abc"};
  const Mask dd = Mask::parse("?d?d");
  const auto after = hybrid_source(words, dd, false);
  REQUIRE(after->size() == 200);
  CHECK(got(*after, 0) == "pw00");
  CHECK(got(*after, 42) == "pw42");
  CHECK(got(*after, 100) == "abc00");
  CHECK(got(*after, 199) == "abc99");
  CHECK(all_distinct(all_of(*after)));

  const auto before = hybrid_source(words, dd, true);
  REQUIRE(before->size() == 200);
  CHECK(got(*before, 0) == "00pw");
  CHECK(got(*before, 101) == "01abc");
  CHECK(all_distinct(all_of(*before)));

  // Over the words through rules: base index word * rules + rule, then the mask; a word a rule
  // rejects makes no candidate for any of the mask's.
  const std::vector<Rule> rules = parse_rules(std::vector<std::string_view>{":", "u", ">3"});
  const auto ruled = hybrid_source(rules_source(words, rules), dd, false);
  REQUIRE(ruled->size() == 2 * 3 * 100);
  CHECK(got(*ruled, 0) == "pw00");
  CHECK(got(*ruled, 105) == "PW05");
  CHECK(got(*ruled, 200) == "<none>");  // ">3": "pw" is shorter than 3
  CHECK(got(*ruled, 299) == "<none>");
  CHECK(got(*ruled, 499) == "ABC99");
  CHECK(got(*ruled, 500) == "abc00");  // "abc" has 3 bytes: kept
  CHECK(got(*hybrid_source(rules_source(words, rules), dd, true), 405) == "05ABC");

  // The source keeps its own copy of the mask.
  const auto copy = [&] { const Mask temporary = Mask::parse("?1", {"xy"}); return hybrid_source(words, temporary, false); }();
  CHECK(got(*copy, 3) == "abcy");
}
