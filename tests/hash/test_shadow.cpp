// parse_shadow: the hash list of wk-hash audit (user:hash[:...]).
#include <catch2/catch.hpp>

#include "wk/hash/audit.hpp"
#include "wk/hash/secret_input.hpp"

TEST_CASE("parse_shadow keeps accounts with hashes, skips locked ones, names bad lines", "[hash][audit]") {
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
  REQUIRE(list.accounts.size() == 3);
  CHECK(list.accounts[0].user == "root");
  CHECK(list.accounts[0].hash == "$6$salt$hash");
  CHECK(list.accounts[1].user == "plain");
  CHECK(list.accounts[1].hash == "$1$abc$def");  // the CR of CRLF is not part of the hash
  CHECK(list.accounts[2].hash == "$2b$04$x");
  CHECK(list.account_line == std::vector<std::size_t>{1, 8, 9});
  CHECK(list.skipped == 3);
  REQUIRE(list.errors.size() == 2);
  CHECK(list.errors[0].first == 6);
  CHECK(list.errors[1].first == 7);
  CHECK(list.errors[0].second == "expected user:hash[:...]");
}
