// The table of image operations and what is derived from their declarations: lookup, syntax
// lines, --help, argument parsing and checking.
#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "image/op_decl.hpp"
#include "wk/core/error.hpp"

namespace wk::image {

namespace detail {
namespace {

// --help order.
const OpDecl* const kOps[] = {&kGrayOp,   &kHistogramOp, &kEqualizeOp,  &kConvOp,      &kGaussOp,
                              &kBoxOp,    &kSobelOp,     &kLaplacianOp, &kSharpenOp,   &kInvertOp,
                              &kThumbnailOp, &kResizeOp, &kFlipOp,  &kRotateOp,   &kTransposeOp, &kCropOp};

const OpDecl* find_decl(std::string_view name) {
  for (const OpDecl* d : kOps)
    if (name == d->info.name || (d->info.alias && name == d->info.alias)) return d;
  return nullptr;
}

std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

bool parse_double(const std::string& text, double& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && std::isfinite(v);
}

bool parse_int(const std::string& text, int& v) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

struct ArgError {
  std::string why;
};

bool in_rules(const OpArg& a, double v) {
  return std::isfinite(v) && v >= a.min && v <= a.max && (!a.odd_only || static_cast<long long>(v) % 2 != 0);
}

double parse_numeric(const OpArg& a, const std::string& text) {
  if (a.kind == ArgKind::integer) {
    int v = 0;
    if (!parse_int(text, v)) throw ArgError{std::string(a.name) + " must be an integer, not '" + text + "'"};
    return v;
  }
  double v = 0;
  if (!parse_double(text, v)) throw ArgError{std::string(a.name) + " must be a number, not '" + text + "'"};
  return v;
}

// The kernel argument: the rest of the text (a file name may itself contain ':').
FilterKernel parse_kernel_arg(const OpInfo& op, const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  try {
    if (first != std::string::npos && text[first] == '[') return parse_kernel_text(text, std::string(op.name) + ":" + text);
    return load_kernel_file(text);
  } catch (const Error& e) {
    const std::string what = e.what();
    // An unreadable kernel file is a bad argument: usage, as a malformed one.
    throw Error(ErrorCategory::usage, what.rfind(op.name, 0) == 0 ? what : std::string(op.name) + ": " + what);
  }
}

OpValues parse_values(const OpInfo& op, const OpSpec& spec) {
  OpValues v;
  v.numbers.assign(op.args.size(), 0.0);
  std::size_t required = 0;
  for (const OpArg& a : op.args) required += a.fallback == nullptr;
  const bool takes_rest = !op.args.empty() && (op.args.back().kind == ArgKind::kernel || op.args.back().kind == ArgKind::text);
  if (spec.args.size() < required || (!takes_rest && spec.args.size() > op.args.size()))
    throw ArgError{std::string(spec.args.size() < required ? "missing argument" : "too many arguments") + ", expected " +
                   (op.args.empty() ? std::string("no arguments") : op_syntax(op))};
  for (std::size_t i = 0; i < op.args.size(); ++i) {
    const OpArg& a = op.args[i];
    std::string text = i < spec.args.size() ? spec.args[i] : (a.fallback ? a.fallback : "");
    if (a.kind == ArgKind::kernel || a.kind == ArgKind::text) {
      for (std::size_t j = i + 1; j < spec.args.size(); ++j) text += ":" + spec.args[j];
      if (a.kind == ArgKind::kernel) v.kernel = parse_kernel_arg(op, text);
      else v.text = text;
    } else if (a.kind == ArgKind::choice) {
      // Empty only where the argument may be left without a value (sobel's derivative).
      const bool empty_ok = text.empty() && a.fallback && !*a.fallback;
      if (!empty_ok && ("|" + std::string(a.choices) + "|").find("|" + text + "|") == std::string::npos)
        throw ArgError{"unknown " + std::string(a.name) + " '" + text + "', expected " + a.rule};
      v.choice = text;
    } else {
      v.numbers[i] = parse_numeric(a, text);
    }
  }
  check_numbers(op, v.numbers);
  return v;
}

}  // namespace

void check_numbers(const OpInfo& op, std::span<const double> numbers) {
  for (std::size_t i = 0; i < op.args.size() && i < numbers.size(); ++i) {
    const OpArg& a = op.args[i];
    if ((a.kind == ArgKind::integer || a.kind == ArgKind::number) && !in_rules(a, numbers[i]))
      throw Error(ErrorCategory::usage,
                  std::string(op.name) + ": " + a.name + " must be " + a.rule + ", not " + format_number(numbers[i]));
  }
}

Operation sized_operation(const char* name, SizeOf size, std::function<void(ConstImageView, ImageView)> cpu,
                          std::function<void(ConstImageView, ImageView, cudaStream_t)> gpu) {
  Operation op;
  op.name = name;
  op.cpu = [size, cpu](cv::Mat& img, RunState&) {
    const auto [w, h] = size(img.cols, img.rows);
    cv::Mat out(h, w, img.type());
    cpu(const_view(img), view(out));
    img = out;
  };
  op.gpu = [size, gpu](GpuFrame& f, cudaStream_t s, RunState&) {
    const DeviceImage& in = f.current();
    const auto [w, h] = size(in.width(), in.height());
    DeviceImage& out = f.next(w, h, in.channels());
    gpu(in.view(), out.view(), s);
    f.swap();
  };
  return op;
}

Operation same_shape_operation(const char* name, std::function<void(ConstImageView, ImageView)> cpu,
                               std::function<void(ConstImageView, ImageView, cudaStream_t)> gpu) {
  return sized_operation(name, [](int w, int h) { return std::pair<int, int>{w, h}; }, std::move(cpu), std::move(gpu));
}

Operation bind_operation(const OpSpec& spec, const PipelineOptions& options) {
  const OpDecl* d = find_decl(spec.name);
  if (!d) {
    std::string known;
    for (const auto& n : known_operations()) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorCategory::usage, "unknown operation '" + spec.name + "' (known: " + known + ")");
  }
  try {
    return d->bind(parse_values(d->info, spec), options);
  } catch (const ArgError& e) {
    throw Error(ErrorCategory::usage, spec.name + ": " + e.why + " ('" + spec.text + "')");
  } catch (const Error& e) {
    if (e.category() != ErrorCategory::usage) throw;
    throw Error(ErrorCategory::usage, std::string(e.what()) + " ('" + spec.text + "')");
  }
}

}  // namespace detail

std::vector<const OpInfo*> operations() {
  std::vector<const OpInfo*> out;
  for (const detail::OpDecl* d : detail::kOps) out.push_back(&d->info);
  return out;
}

const OpInfo* find_operation(std::string_view name) {
  const detail::OpDecl* d = detail::find_decl(name);
  return d ? &d->info : nullptr;
}

std::vector<std::string> known_operations() {
  std::vector<std::string> names;
  for (const detail::OpDecl* d : detail::kOps) names.emplace_back(d->info.name);
  return names;
}

std::string op_syntax(const OpInfo& op) {
  std::string s = op.name;
  for (const OpArg& a : op.args) {
    const bool optional = a.fallback != nullptr;
    const std::string shown = a.kind == ArgKind::choice ? std::string(a.choices) : a.name;
    s += (optional ? "[:" : ":") + shown + (optional ? "]" : "");
  }
  if (op.alias) s += ", " + std::string(op.alias);
  return s;
}

std::string operations_help() {
  std::string out;
  for (const detail::OpDecl* d : detail::kOps) {
    std::string syntax = op_syntax(d->info);
    if (syntax.size() < 26) syntax.resize(26, ' ');
    out += "  " + syntax + " " + d->info.summary + "\n";
    for (const OpArg& a : d->info.args) {
      std::string text = std::string(a.name) + ": " + a.rule;
      if (a.fallback && *a.fallback) text += std::string(", default ") + a.fallback;
      // Wrapped at 100 columns, continuation lines indented under the text.
      std::string line = std::string(29, ' ');
      std::istringstream words(text);
      for (std::string w; words >> w;) {
        if (line.size() > 29 && line.size() + 1 + w.size() > 100) {
          out += line + "\n";
          line = std::string(31, ' ');
        }
        line += (line.back() == ' ' ? "" : " ") + w;
      }
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace wk::image
