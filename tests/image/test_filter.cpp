// The convolution family's shared vocabulary: borders, kernel parsing, rank-1 factors; the rung
// tables of the family and of every image operation.
#include <catch2/catch.hpp>
#include <opencv2/core.hpp>

#include "filter_test_util.hpp"
#include "rung_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/filter.hpp"

using namespace wk;
using image::BorderMode;

namespace {
ErrorCategory category_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.category();
  }
  return ErrorCategory::internal;
}
std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("border_index equals cv::borderInterpolate for every mode, length and position", "[filter]") {
  const std::pair<BorderMode, int> modes[] = {{BorderMode::replicate, cv::BORDER_REPLICATE},
                                              {BorderMode::reflect, cv::BORDER_REFLECT},
                                              {BorderMode::reflect101, cv::BORDER_REFLECT_101},
                                              {BorderMode::wrap, cv::BORDER_WRAP},
                                              {BorderMode::constant, cv::BORDER_CONSTANT}};
  for (auto [mode, cv_mode] : modes)
    for (int n = 1; n <= 40; ++n)
      for (int p = -100; p <= 140; ++p) {
        CAPTURE(int(mode), n, p);
        REQUIRE(image::border_index(p, n, mode) == cv::borderInterpolate(p, n, cv_mode));
      }
}

TEST_CASE("parse_border accepts OpenCV's modes and constant:V, names the choices otherwise", "[filter]") {
  CHECK(image::parse_border("reflect101").mode == BorderMode::reflect101);
  CHECK(image::parse_border("reflect").mode == BorderMode::reflect);
  CHECK(image::parse_border("replicate").mode == BorderMode::replicate);
  CHECK(image::parse_border("wrap").mode == BorderMode::wrap);
  CHECK(image::parse_border("constant").value == 0);
  const auto c = image::parse_border("constant:12.5");
  CHECK((c.mode == BorderMode::constant && c.value == 12.5));
  CHECK(image::to_string(c) == "constant:12.5");
  CHECK(image::Border{}.mode == BorderMode::reflect101);
  for (const char* bad : {"mirror", "", "constant:", "constant:x", "wrap:3", "reflect101:1", "constant:inf"}) {
    CAPTURE(bad);
    CHECK(category_of([&] { image::parse_border(bad); }) == ErrorCategory::usage);
  }
  CHECK_THAT(message_of([] { image::parse_border("mirror"); }), Catch::Contains("reflect101") && Catch::Contains("wrap"));
}

TEST_CASE("parse_kernel_text reads [a b, c d] and rejects malformed kernels with the operation's name", "[filter]") {
  auto k = image::parse_kernel_text("[1 2 1; 2, 4, 2; 1 2 1]", "conv");
  CHECK((k.width == 3 && k.height == 3));
  CHECK(k.weights == std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1});
  k = image::parse_kernel_text(" [ -0.5  +1.5e1 ] ", "conv");
  CHECK((k.width == 2 && k.height == 1 && k.weights[0] == -0.5f && k.weights[1] == 15.f));
  CHECK((k.anchor_x() == 1 && k.anchor_y() == 0));
  k = image::parse_kernel_text("[1; 2; 3; 4]", "conv");
  CHECK((k.width == 1 && k.height == 4 && k.anchor_y() == 2));
  std::string wide = "[";
  for (int i = 0; i < 31; ++i) wide += "1 ";
  CHECK(image::parse_kernel_text(wide + "]", "conv").width == 31);
  const char* bad[] = {"[]", "[ ; ]", "[1 a]", "[1 2; 3]", "1 2 3", "[1 2", "[[1]]", "[1 nan]", "[1 inf]", "[1e99]"};
  for (const char* text : bad) {
    CAPTURE(text);
    CHECK(category_of([&] { image::parse_kernel_text(text, "conv:x"); }) == ErrorCategory::usage);
    CHECK_THAT(message_of([&] { image::parse_kernel_text(text, "conv:x"); }), Catch::Contains("conv:x"));
  }
  CHECK(category_of([&] { image::parse_kernel_text(wide + "1]", "conv"); }) == ErrorCategory::usage);
  CHECK_THAT(message_of([] { image::parse_kernel_text("[1 a]", "conv"); }), Catch::Contains("'a'"));
  CHECK_THAT(message_of([] { image::parse_kernel_text("[1 2; 3]", "conv"); }), Catch::Contains("row 2"));
}

TEST_CASE("load_kernel_file: a row per line, comments, commas, errors name the file and line", "[filter]") {
  test::TempDir dir;
  test::write_bytes(dir / "k.txt", "# a 3x2 kernel\n1 2 3   # first row\n\n 4,5,6\n");
  const auto k = image::load_kernel_file(dir / "k.txt");
  CHECK((k.width == 3 && k.height == 2));
  CHECK(k.weights == std::vector<float>{1, 2, 3, 4, 5, 6});
  test::write_bytes(dir / "empty.txt", "# nothing here\n\n");
  CHECK(category_of([&] { image::load_kernel_file(dir / "empty.txt"); }) == ErrorCategory::usage);
  CHECK_THAT(message_of([&] { image::load_kernel_file(dir / "empty.txt"); }), Catch::Contains("empty kernel"));
  test::write_bytes(dir / "bad.txt", "1 2\n3 QZ\n");  // the text is not quoted back
  CHECK_THAT(message_of([&] { image::load_kernel_file(dir / "bad.txt"); }), Catch::Contains("bad.txt:2") && Catch::Contains("weight 2") && !Catch::Contains("QZ"));
  test::write_bytes(dir / "ragged.txt", "1 2\n3\n");
  CHECK_THAT(message_of([&] { image::load_kernel_file(dir / "ragged.txt"); }), Catch::Contains("ragged.txt:2"));
  CHECK(category_of([&] { image::load_kernel_file(dir / "missing.txt"); }) == ErrorCategory::io);
}

TEST_CASE("separate finds rank-1 factors and refuses other kernels", "[filter]") {
  auto outer = [](std::vector<float> col, std::vector<float> row) {
    image::FilterKernel k;
    k.width = int(row.size());
    k.height = int(col.size());
    for (float c : col)
      for (float r : row) k.weights.push_back(c * r);
    return k;
  };
  for (const auto& k : {outer({1, 2, 1}, {-1, 0, 1}), outer({0.25f, 0.5f, 0.25f}, {1, 4, 6, 4, 1}), outer({3}, {1, 2, 3, 4}),
                        outer({1, -2, 7, 0.5f}, {2}), outer({1}, {5}), outer({0.1f, 0.2f}, {0.3f, -0.7f, 0.11f, 0.9f})}) {
    CAPTURE(k.width, k.height);
    const auto f = image::separate(k);
    REQUIRE(f);
    // The row factor is 1 at the largest weight: never OpenCV's "smooth" fixed-point case.
    CHECK(std::find(f->row.begin(), f->row.end(), 1.f) != f->row.end());
    for (int y = 0; y < k.height; ++y)
      for (int x = 0; x < k.width; ++x) CHECK(f->column[y] * f->row[x] == Approx(k.at(y, x)).margin(1e-6));
  }
  CHECK_FALSE(image::separate(image::parse_kernel_text("[0 1 0; 1 -4 1; 0 1 0]", "t")));
  CHECK_FALSE(image::separate(image::parse_kernel_text("[1 2; 3 4]", "t")));
  CHECK_FALSE(image::separate(image::parse_kernel_text("[0 0; 0 0]", "t")));
  CHECK_FALSE(image::separate(test::random_kernel(7, 7, 3)));
}

TEST_CASE("check_kernel_fits and the convolution family's rung tables", "[filter]") {
  CHECK_NOTHROW(image::check_kernel_fits("gauss", 5, 5, 5, 5));
  CHECK(category_of([] { image::check_kernel_fits("gauss", 5, 5, 4, 9); }) == ErrorCategory::usage);
  CHECK_THAT(message_of([] { image::check_kernel_fits("gauss", 5, 3, 4, 9); }), Catch::Contains("gauss") && Catch::Contains("larger"));
  // Every op of the family has the generic ladder, then its own rungs; each op refuses the rungs
  // only other ops have.
  const std::vector<std::string> generic = {"naive", "constant_weights", "shared_tiles", "cached_halo",
                                            "register_blocked", "tensor_core", "separable"};
  auto with = [&](std::vector<std::string> own) {
    std::vector<std::string> all = generic;
    all.insert(all.end(), own.begin(), own.end());
    return all;
  };
  test::check_rung_table("conv", generic, {"rolling", "vectorized_3x3", "vectorized_5x5", "vectorized_wide", "fft"});
  test::check_rung_table("box", generic, {"rolling", "vectorized_3x3", "vectorized_5x5", "vectorized_wide"});
  test::check_rung_table("gauss", with({"rolling", "vectorized_5x5", "vectorized_wide"}), {"vectorized_3x3"});
  test::check_rung_table("sobel", with({"rolling", "vectorized_3x3"}), {"vectorized_5x5", "vectorized_wide"});
  test::check_rung_table("laplacian", with({"vectorized_3x3"}), {"rolling", "vectorized_5x5", "vectorized_wide"});
  test::check_rung_table("sharpen", with({"rolling", "vectorized_5x5"}), {"vectorized_3x3", "vectorized_wide"});
}

TEST_CASE("every image operation declares a ladder of at least two well-formed, distinct rung names", "[filter]") {
  REQUIRE_FALSE(image::operations().empty());
  for (const image::OpInfo* op : image::operations()) {
    REQUIRE(op != nullptr);
    const std::string name = op->name;
    CAPTURE(name);
    CHECK(image::find_operation(name) == op);
    const std::vector<std::string> names = test::rung_names_of(name);
    CHECK(names.size() >= 2);
    test::check_rung_table(name, names);
  }
}
