// parse_shadow: the hash list of wk-hash audit (user:hash[:...]).
#include <catch2/catch.hpp>

#include "wk/hash/audit.hpp"
#include "wk/hash/secret_input.hpp"

TEST_CASE("parse_shadow keeps accounts with hashes, skips locked ones, names bad lines", "[hash][audit]") {
  // An empty password field (nopw) needs no password at all (shadow(5)): a finding, not a skip. A
  // line with no ':' is a hash alone, its user named by its line (whether it can be checked is
  // hash_problems' question); an empty user is an error.
  const std::string text =
      "root:$6$salt$hash:19000:0:99999:7:::\n"
      "daemon:*:19000::::::\n"
      "locked:!$1$abc$def:1::::::\n"
      "nopw::19000::::::\n"
      "\n"
      "no colon here\n"
      ":$1$abc$def\n"
      "plain:$1$abc$def\r\n"
      "last:$2b$04$x";
  const auto lines = wk::hash::split_lines(text);
  const wk::hash::ShadowList list = wk::hash::parse_shadow(lines);
  REQUIRE(list.accounts.size() == 4);
  CHECK(list.accounts[0].user == "root");
  CHECK(list.accounts[0].hash == "$6$salt$hash");
  CHECK(list.accounts[1].user == "line 6");
  CHECK(list.accounts[1].hash == "no colon here");
  CHECK(list.accounts[2].user == "plain");
  CHECK(list.accounts[2].hash == "$1$abc$def");  // the CR of CRLF is not part of the hash
  CHECK(list.accounts[3].hash == "$2b$04$x");
  CHECK(list.account_line == std::vector<std::size_t>{1, 6, 8, 9});
  CHECK(list.skipped == 2);
  CHECK(list.no_password == std::vector<std::string>{"nopw"});
  CHECK(list.no_password_line == std::vector<std::size_t>{4});
  REQUIRE(list.errors.size() == 1);
  CHECK(list.errors[0].first == 7);
  CHECK(list.errors[0].second == "expected user:hash[:...] or a hash alone: the user name is empty");
}

TEST_CASE("parse_shadow: empty password fields are findings, over-long lines are errors that quote nothing", "[hash][audit]") {
  const std::string long_hash(wk::hash::kMaxLineBytes, 'S');
  const std::string text = "a:\nb:$1$abc$def\nc::1:2\nd:" + long_hash + "\ne:\r\n";
  const auto lines = wk::hash::split_lines(text);
  const wk::hash::ShadowList list = wk::hash::parse_shadow(lines);
  CHECK(list.no_password == std::vector<std::string>{"a", "c", "e"});
  CHECK(list.no_password_line == std::vector<std::size_t>{1, 3, 5});
  REQUIRE(list.accounts.size() == 1);
  CHECK(list.accounts[0].user == "b");
  CHECK(list.skipped == 0);
  REQUIRE(list.errors.size() == 1);
  CHECK(list.errors[0].first == 4);
  CHECK(list.errors[0].second.find("65536") != std::string::npos);
  CHECK(list.errors[0].second.find("SSS") == std::string::npos);
}
