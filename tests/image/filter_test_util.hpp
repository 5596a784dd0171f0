#pragma once
// Shared by the convolution family's tests: border lists, a double-precision reference
// correlation for every border (wrap included: no OpenCV filter has it), and device images of
// any type, aligned (cudaMallocPitch) or deliberately not (odd pitch, odd address).
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>
#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/image/filter.hpp"
#include "wk/image/filter_formula.hpp"

namespace wk::test {

inline std::vector<image::Border> all_borders() {
  using image::BorderMode;
  return {{BorderMode::reflect101, 0}, {BorderMode::reflect, 0}, {BorderMode::replicate, 0},
          {BorderMode::constant, 0},   {BorderMode::constant, 77}, {BorderMode::wrap, 0}};
}

inline std::string name_of(const image::Border& b) { return image::to_string(b); }

// The borders a size sweep checks at its point `i`: all six, or under compute-sanitizer
// (sanitizer_run()) one of them, in turn, so the sweep still meets every border across its sizes
// with a sixth of the launches (initcheck tracks every byte of every launch, and the gauss sweeps
// set the sanitize label's length); the plain run checks every combination.
inline std::vector<image::Border> sweep_borders(std::size_t i) {
  std::vector<image::Border> all = all_borders();
  if (!sanitizer_run()) return all;
  return {all[i % all.size()]};
}

// Exact (double) correlation of an 8-bit or float image with `k`, any border: CV_64FC(cn).
inline cv::Mat reference_correlation(const cv::Mat& src, const image::FilterKernel& k, const image::Border& b) {
  const int cn = src.channels(), w = src.cols, h = src.rows;
  cv::Mat f;
  src.convertTo(f, CV_64F);
  const double v = src.depth() == CV_8U ? std::clamp(std::round(b.value), 0.0, 255.0) : b.value;
  cv::Mat out(h, w, CV_64FC(cn));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < cn; ++c) {
        double s = 0;
        for (int i = 0; i < k.height; ++i) {
          const int yy = image::border_index(y + i - k.anchor_y(), h, b.mode);
          for (int j = 0; j < k.width; ++j) {
            const int xx = image::border_index(x + j - k.anchor_x(), w, b.mode);
            const double p = (yy < 0 || xx < 0) ? v : f.ptr<double>(yy)[xx * cn + c];
            s += double(k.at(i, j)) * p;
          }
        }
        out.ptr<double>(y)[x * cn + c] = s;
      }
  return out;
}

// cv::GaussianBlur's 8-bit fixed-point arithmetic with warpkit's border rule (any mode): the
// model the GPU kernels implement, checked against OpenCV in test_gauss.cpp.
inline cv::Mat gauss_fixed_reference(const cv::Mat& src, const std::vector<int>& k, const image::Border& b) {
  const int cn = src.channels(), w = src.cols, h = src.rows, n = static_cast<int>(k.size()), r = n / 2;
  const int v = static_cast<int>(std::clamp(std::round(b.value), 0.0, 255.0));
  cv::Mat out(h, w, CV_8UC(cn));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < cn; ++c) {
        unsigned sum = 0;
        for (int i = 0; i < n; ++i) {
          const int yy = image::border_index(y + i - r, h, b.mode);
          unsigned row = 0;
          for (int j = 0; j < n; ++j) {
            const int xx = image::border_index(x + j - r, w, b.mode);
            row += unsigned(k[j]) * unsigned(yy < 0 || xx < 0 ? v : src.ptr<std::uint8_t>(yy)[xx * cn + c]);
          }
          sum += unsigned(k[i]) * row;
        }
        out.ptr<std::uint8_t>(y)[x * cn + c] = static_cast<std::uint8_t>(std::min(255u, image::gauss_fixed_round(sum)));
      }
  return out;
}

// cvRound and saturate to 8 bits (elementwise), from the double reference.
inline cv::Mat round_to_u8(const cv::Mat& ref) {
  cv::Mat out(ref.rows, ref.cols, CV_8UC(ref.channels()));
  for (int y = 0; y < ref.rows; ++y)
    for (int x = 0; x < ref.cols * ref.channels(); ++x)
      out.ptr<std::uint8_t>(y)[x] = cv::saturate_cast<std::uint8_t>(std::nearbyint(ref.ptr<double>(y)[x]));
  return out;
}

inline double max_abs_diff(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat fa, fb;
  a.convertTo(fa, CV_64F);
  b.convertTo(fb, CV_64F);
  return cv::norm(fa, fb, cv::NORM_INF);
}

inline image::FilterKernel random_kernel(int w, int h, unsigned seed, float lo = -1.f, float hi = 1.f) {
  cv::RNG rng(seed);
  image::FilterKernel k;
  k.width = w;
  k.height = h;
  for (int i = 0; i < w * h; ++i) k.weights.push_back(rng.uniform(lo, hi));
  return k;
}

// A device image of the Mat's type. aligned: cudaMallocPitch rows; otherwise linear memory with
// 3 bytes of padding per row, starting one byte (8-bit) or one element past an aligned address.
class DeviceMat {
 public:
  DeviceMat(const cv::Mat& like, bool aligned, cudaStream_t stream) : rows_(like.rows), row_bytes_(like.cols * like.elemSize()),
                                                                      type_(like.type()), cols_(like.cols), stream_(stream) {
    if (aligned) {
      WK_CUDA_CHECK(cudaMallocPitch(&base_, &pitch_, row_bytes_ ? row_bytes_ : 1, rows_ ? rows_ : 1));
      data_ = static_cast<std::uint8_t*>(base_);
    } else {
      const std::size_t elem = like.elemSize1();
      pitch_ = row_bytes_ + 3 * elem;
      WK_CUDA_CHECK(cudaMalloc(&base_, pitch_ * rows_ + 2 * elem));
      data_ = static_cast<std::uint8_t*>(base_) + elem;
    }
    WK_CUDA_CHECK(cudaMemset2DAsync(data_, pitch_, 0xCD, row_bytes_, rows_, stream));
  }
  ~DeviceMat() { cudaFree(base_); }
  DeviceMat(const DeviceMat&) = delete;
  DeviceMat& operator=(const DeviceMat&) = delete;

  void upload(const cv::Mat& m) {
    WK_CUDA_CHECK(cudaMemcpy2DAsync(data_, pitch_, m.data, m.step[0], row_bytes_, rows_, cudaMemcpyHostToDevice, stream_));
  }
  cv::Mat download() const {
    cv::Mat m(rows_, cols_, type_);
    WK_CUDA_CHECK(cudaMemcpy2DAsync(m.data, m.step[0], data_, pitch_, row_bytes_, rows_, cudaMemcpyDeviceToHost, stream_));
    WK_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return m;
  }
  template <class T>
  ImageViewT<T> view() const {
    return {reinterpret_cast<T*>(data_), cols_, rows_, pitch_, CV_MAT_CN(type_)};
  }

 private:
  void* base_ = nullptr;
  std::uint8_t* data_ = nullptr;
  std::size_t pitch_ = 0;
  int rows_;
  std::size_t row_bytes_;
  int type_, cols_;
  cudaStream_t stream_;
};

// Runs fn(device input view, device output view, stream) on a copy of src and returns the output
// (of out_type), with aligned or deliberately misaligned device buffers.
template <class Tin, class Tout, class Fn>
cv::Mat gpu_run(const cv::Mat& src, int out_type, bool aligned, Fn fn) {
  Stream stream;
  DeviceMat in(src, aligned, stream);
  in.upload(src);
  DeviceMat out(cv::Mat(src.rows, src.cols, out_type), aligned, stream);
  fn(in.view<const Tin>(), out.view<Tout>(), stream.get());
  return out.download();
}

inline image::ConstImageViewF32 cview_f32(const cv::Mat& m) { return {m.ptr<float>(), m.cols, m.rows, m.step[0], m.channels()}; }
inline image::ImageViewF32 view_f32(cv::Mat& m) { return {m.ptr<float>(), m.cols, m.rows, m.step[0], m.channels()}; }
inline image::ImageViewS16 view_s16(cv::Mat& m) { return {m.ptr<std::int16_t>(), m.cols, m.rows, m.step[0], m.channels()}; }

// A random 8-bit image, or float in [0, 255) for CV_32F.
inline cv::Mat random_mat(int w, int h, int type, unsigned seed) {
  cv::Mat m(h, w, type);
  cv::RNG rng(seed);
  if (CV_MAT_DEPTH(type) == CV_32F) rng.fill(m, cv::RNG::UNIFORM, cv::Scalar::all(0), cv::Scalar::all(255));
  else rng.fill(m, cv::RNG::UNIFORM, cv::Scalar::all(0), cv::Scalar::all(256));
  return m;
}

// The edge cases of the vectorized_3x3 kernel (sobel, laplacian): widths around its 8-column
// chunks, 256-column half warps and 512-column warps (lanes 0 and 31 load their neighbours; chunks
// straddling the right edge go byte by byte; warps that skip the border logic from 1028 columns
// and 9 rows), heights around its 4-row warps and 16-row blocks,
// aligned and odd pitches. Borders rotate over those cases (each meets every border several times)
// to keep compute-sanitizer runs short; then every border on one image with interior warps,
// partial chunks and several blocks down. check(src, border, aligned) compares one image; the
// images are random_image(w, h, 1, w * seed_step + h) and random_image(1037, 75, 1, last_seed).
template <class Check>
void for_each_stencil3x3_case(unsigned seed_step, unsigned last_seed, Check check) {
  const auto borders = all_borders();
  // 8 / 33: around the warp and block of the rung's earlier policy. An odd count, so that aligned
  // and odd-pitch cases (alternating) both meet every height.
  const int heights[] = {3, 4, 5, 8, 9, 16, 17, 33, 70};
  constexpr int kHeights = sizeof(heights) / sizeof(heights[0]);
  int n = 0;
  for (int w : {3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 127, 129, 255, 256, 257, 263, 511, 512, 513, 520, 1027, 1028, 1029, 1031, 1536, 4097})
    for (bool aligned : {true, false}) {
      const image::Border b = borders[std::size_t(n) % borders.size()];
      const int h = heights[n % kHeights];
      ++n;
      CAPTURE(w, h, aligned, name_of(b));
      check(random_image(w, h, 1, unsigned(w) * seed_step + unsigned(h)), b, aligned);
    }
  const cv::Mat src = random_image(1037, 75, 1, last_seed);
  for (const auto& b : borders) {
    CAPTURE(name_of(b));
    check(src, b, true);
  }
}

}  // namespace wk::test
