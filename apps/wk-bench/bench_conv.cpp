// wk-bench conv: generic non-separable float kernels 7x7 and 15x15 (fixed random weights), and a
// separable 7x7, within 1 LSB of cv::filter2D / sepFilter2D, against NPP's
// nppiFilterBorder32f (replicate border; NPP flips the kernel, same work).
#include <fmt/core.h>
#include <opencv2/core.hpp>

#include "bench_filter.hpp"
#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/image/conv.hpp"

namespace wk::bench {

namespace {
image::FilterKernel random_kernel(int n, unsigned seed) {
  cv::RNG rng(seed);
  image::FilterKernel k;
  k.width = k.height = n;
  for (int i = 0; i < n * n; ++i) k.weights.push_back(rng.uniform(-0.5f, 1.f) / float(n));
  return k;
}
}  // namespace

int bench_conv(const Options& o) {
  std::vector<FilterBench> benches;
  const image::Border border{image::BorderMode::replicate, 0};
  struct Case {
    int n;
    bool separable;
  };
  for (const Case c : {Case{7, false}, Case{15, false}, Case{7, true}}) {
    image::FilterKernel k = random_kernel(c.n, unsigned(c.n));
    if (c.separable) {  // an outer product
      const image::FilterKernel v = random_kernel(c.n, 99);
      for (int y = 0; y < c.n; ++y)
        for (int x = 0; x < c.n; ++x) k.weights[y * c.n + x] = v.weights[y] * v.weights[x] * float(c.n);
    }
    FilterBench b;
    b.title = fmt::format("conv {}x{} float weights, {}, replicate border", c.n, c.n, c.separable ? "rank 1" : "non-separable");
    b.tolerance = 1;
    b.cpu = [k, border](const cv::Mat& in, cv::Mat& out) {
      image::conv_cpu({in.data, in.cols, in.rows, in.step[0], 1}, {out.data, out.cols, out.rows, out.step[0], 1}, k, border);
    };
    b.gpu = [k, border](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s, std::string_view rung) {
      return image::conv(in, {static_cast<std::uint8_t*>(out), in.width, in.height, pitch, 1}, k, border, s, rung);
    };
#if defined(WK_HAVE_NPP)
    auto d_kernel = std::make_shared<DeviceBuffer<float>>(k.weights.size());
    WK_CUDA_CHECK(cudaMemcpy(d_kernel->get(), k.weights.data(), d_kernel->bytes(), cudaMemcpyHostToDevice));
    WK_CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may return before its DMA lands
    b.npp = [d_kernel, n = c.n](ConstImageView in, void* out, std::size_t pitch, cudaStream_t s) {
      npp_filter32f(in.data, in.pitch_bytes, static_cast<std::uint8_t*>(out), pitch, in.width, in.height, d_kernel->get(), n, n, s);
    };
#endif
    benches.push_back(std::move(b));
  }
  return run_filter_benches(o, "conv", benches);
}

}  // namespace wk::bench
