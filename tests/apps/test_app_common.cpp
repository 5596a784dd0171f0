// What every app shares (apps/common): the process settings made first thing in main; the help
// and completion scripts made from an app's CLI::App.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "app_common.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/op.hpp"

TEST_CASE("widen_gpu_work_queues: 12 CUDA work queues unless the user chose", "[app]") {
  wk::test::ScopedEnv queues("CUDA_DEVICE_MAX_CONNECTIONS");
  SECTION("unset: set to 12") {
    queues.unset();
    wk::app::widen_gpu_work_queues();
    const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    REQUIRE(v != nullptr);
    CHECK(std::string(v) == "12");
    CHECK(std::string(v) == wk::app::kGpuWorkQueues);
  }
  SECTION("set: kept, even when empty") {
    for (const char* mine : {"4", "32", ""}) {
      queues.set(mine);
      wk::app::widen_gpu_work_queues();
      CHECK(std::string(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) == mine);
    }
  }
}

TEST_CASE("restrict_visible_gpus: --gpus picks entries of CUDA_VISIBLE_DEVICES before CUDA starts", "[app]") {
  wk::test::ScopedEnv visible("CUDA_VISIBLE_DEVICES");
  visible.set("3,1,GPU-abc,2");
  CHECK(wk::app::visible_gpu_count() == 4);
  CHECK(wk::app::restrict_visible_gpus({2, 0}));
  CHECK(std::string(std::getenv("CUDA_VISIBLE_DEVICES")) == "GPU-abc,3");
  CHECK(wk::app::visible_gpu_count() == 2);
  // An id past what is visible changes nothing: the engine's start names it.
  CHECK_FALSE(wk::app::restrict_visible_gpus({0, 2}));
  CHECK(std::string(std::getenv("CUDA_VISIBLE_DEVICES")) == "GPU-abc,3");
  // The runtime stops at the first entry that names no device.
  visible.set("0,-1,1");
  CHECK(wk::app::visible_gpu_count() == 1);
  CHECK_FALSE(wk::app::restrict_visible_gpus({1}));
}

// --help-all and --completion (run_app), made from the CLI::App: what the man pages and the shell
// completion scripts are made of.
namespace {

// An app with a flag, options with and without choices, a number, a hidden option, and two
// subcommands, one with positionals.
struct ToyApp {
  CLI::App app{"toy: a test app"};
  bool flag = false;
  std::string mode, file, hidden;
  int count = 0;
  std::vector<std::string> inputs;
  ToyApp() {
    app.name("toy");
    app.footer("Shared notes: read them.");
    app.add_flag("--flag", flag, "A flag");
    CLI::App* run = app.add_subcommand("run", "Run things");
    run->add_option("--mode", mode, "How")->check(CLI::IsMember({"fast", "slow"}));
    run->add_option("-f,--file", file, "A file");
    run->add_option("--count", count, "How many");
    run->add_option("--secret", hidden, "Not shown")->group("");
    run->add_option("first", file, "The first");
    run->add_option("rest", inputs, "The others");
    run->footer("Shared notes: read them.");
    CLI::App* show = app.add_subcommand("show", "Show things");
    show->footer("Only here.");
  }
};

}  // namespace

TEST_CASE("full_help: the help, then each subcommand's, footers the app shows once", "[app][help]") {
  ToyApp toy;
  const std::string help = wk::app::full_help(toy.app);
  CHECK_THAT(help, Catch::StartsWith(toy.app.help()));
  CHECK_THAT(help, Catch::Contains("\ntoy run:\n  Run things\n\n  Usage: toy run [OPTIONS] [first] [rest...]\n"));
  CHECK_THAT(help, Catch::Contains("\ntoy show:\n  Show things\n") && Catch::Contains("  Only here."));
  CHECK_THAT(help, Catch::Contains("--mode") && Catch::Contains("--count") && !Catch::Contains("--secret"));
  // The footer of `run` is the app's own: once, not twice.
  CHECK(help.find("Shared notes") == help.rfind("Shared notes"));
}

TEST_CASE("completion_script: flags, values, choices, numbers, hidden options and positionals", "[app][completion]") {
  ToyApp toy;
  const std::string bash = wk::app::completion_script("toy", toy.app, "bash");
  CHECK_THAT(bash, Catch::Contains("complete -F _toy toy"));
  CHECK_THAT(bash, Catch::Contains("'') opts='-h --help --flag' vopts='' subs='run show' ;;"));
  CHECK_THAT(bash, Catch::Contains("'run') opts='-h --help --mode -f --file --count' vopts='--mode -f --file --count' subs='' ;;"));
  CHECK_THAT(bash, Catch::Contains("'run --mode') _toy_reply compgen -W 'fast slow' -- \"$3\" ;;"));
  CHECK_THAT(bash, Catch::Contains("'run -f'|'run --file') compopt -o filenames"));
  CHECK_THAT(bash, Catch::Contains("'run --count') : ;;"));  // a number: nothing to offer
  CHECK_THAT(bash, Catch::Contains("'run 0') compopt -o filenames") && Catch::Contains("'run 1'|'run '*) compopt"));
  CHECK_THAT(bash, !Catch::Contains("secret"));

  const std::string zsh = wk::app::completion_script("toy", toy.app, "zsh");
  CHECK_THAT(zsh, Catch::StartsWith("#compdef toy\n"));
  CHECK_THAT(zsh, Catch::Contains("'(--flag)--flag[A flag]'"));
  CHECK_THAT(zsh, Catch::Contains("'(--mode)--mode=[How]:mode:(fast slow)'"));
  CHECK_THAT(zsh, Catch::Contains("'(-f --file)-f+[A file]:file:_files'"));
  CHECK_THAT(zsh, Catch::Contains("'1:first:_files'") && Catch::Contains("'*:rest:_files'"));
  CHECK_THAT(zsh, Catch::Contains("'run:Run things'") && Catch::Contains("'show:Show things'"));
  CHECK_THAT(zsh, !Catch::Contains("secret"));

  CHECK_THROWS_AS(wk::app::completion_script("toy", toy.app, "fish"), wk::Error);
}

TEST_CASE("pipeline_words: every operation, its alias, NAME: where an argument must follow, the choices", "[app][completion]") {
  const std::vector<std::string> words = wk::app::pipeline_words();
  auto has = [&](const std::string& w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  for (const std::string& op : wk::image::known_operations()) {
    CAPTURE(op);
    CHECK(std::any_of(words.begin(), words.end(), [&](const std::string& w) { return w == op || w.rfind(op + ":", 0) == 0; }));
  }
  CHECK(has("gray"));
  CHECK(has("hist"));         // an alias
  CHECK(has("gauss:"));       // K is required
  CHECK(has("thumbnail:"));
  CHECK(has("sharpen"));      // AMOUNT is optional
  CHECK(has("sobel"));
  CHECK(has("sobel:dx"));
  CHECK(has("rotate:270"));
  CHECK(!has("rotate:"));     // its choices stand for it
  CHECK(!has("gauss"));
}
