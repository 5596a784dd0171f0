// The histogram operation: 256-bin counts per channel as side outputs; the image passes through.
#include <memory>
#include <optional>

#include "image/op_decl.hpp"
#include "image/rungs.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/image/histogram.hpp"

namespace wk::image::detail {

namespace {

void add_histogram_outputs(RunState& st, std::span<const std::uint32_t> hist, int channels, bool plot, int number) {
  if (!st.side_outputs) return;
  const std::string stem = number == 1 ? ".hist" : ".hist" + std::to_string(number);
  const std::string csv = histogram_csv(hist, channels);
  st.side_outputs->push_back({stem + ".csv", std::vector<std::uint8_t>(csv.begin(), csv.end())});
  if (plot) st.side_outputs->push_back({stem + ".png", histogram_plot_png(hist, channels)});
}

Operation bind(const OpValues&, const PipelineOptions& options) {
  struct GpuState {
    HistogramWorkspace workspace;
    DeviceBuffer<std::uint32_t> d_hist{4 * kHistogramBins};
    PinnedBuffer<std::uint32_t> h_hist{4 * kHistogramBins};
  };
  auto state = std::make_shared<std::optional<GpuState>>();
  const bool plot = options.plot;
  Operation op;
  op.name = "histogram";
  op.analysis = true;
  op.cpu = [plot](cv::Mat& img, RunState& st) {
    std::vector<std::uint32_t> hist(std::size_t(img.channels()) * kHistogramBins);
    histogram_cpu(const_view(img), hist);
    add_histogram_outputs(st, hist, img.channels(), plot, ++st.histograms);
  };
  op.gpu = [state, plot](GpuFrame& f, cudaStream_t s, RunState& st) {
    if (!*state) state->emplace();
    GpuState& g = **state;
    const DeviceImage& in = f.current();
    const int cn = in.channels();
    histogram(in.view(), g.d_hist.get(), s, &g.workspace);
    WK_CUDA_CHECK(cudaMemcpyAsync(g.h_hist.get(), g.d_hist.get(), std::size_t(cn) * kHistogramBins * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToHost, s));
    // Numbered now, in pipeline order; formatted once the stream has finished.
    const int number = ++st.histograms;
    st.after_sync.push_back([&st, state, cn, plot, number] {
      add_histogram_outputs(st, std::span<const std::uint32_t>((*state)->h_hist.get(), std::size_t(cn) * kHistogramBins), cn,
                            plot, number);
    });
  };
  return op;
}

}  // namespace

const OpDecl kHistogramOp{
    {"histogram", "hist", "256-bin counts to NAME.hist.csv (and NAME.hist.png with a plot); image unchanged", {}, &histogram_rungs},
    &bind};

}  // namespace wk::image::detail
