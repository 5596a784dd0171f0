#pragma once
// One function per benchmarked operation; the name is the operation's name everywhere.
#include <cstddef>
#include <cstdint>

#include "bench_util.hpp"

namespace wk::bench {

int bench_gray(const Options& options);
int bench_histogram(const Options& options);
int bench_equalize(const Options& options);
int bench_conv(const Options& options);
int bench_gauss(const Options& options);
int bench_box(const Options& options);
int bench_sobel(const Options& options);
int bench_laplacian(const Options& options);
int bench_rotate(const Options& options);
int bench_resize(const Options& options);
int bench_sharpen(const Options& options);
int bench_idea(const Options& options);
int bench_hash(const Options& options);
int bench_yescrypt(const Options& options);
int bench_audit(const Options& options);
int bench_dist(const Options& options);  // under mpirun: rank 0's cost per chunk

#if defined(WK_HAVE_NPP)
// NPP peers (npp_peers.cpp), only when NPP was found at configure time.
void npp_rgb_to_gray(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch,
                     int width, int height, cudaStream_t stream);

// nppiHistogramEven_8u_C1R_Ctx with 256 bins over [0, 256) and its scratch buffer, allocated once.
class NppHistogram {
 public:
  NppHistogram(int width, int height, cudaStream_t stream);
  ~NppHistogram();
  NppHistogram(const NppHistogram&) = delete;
  NppHistogram& operator=(const NppHistogram&) = delete;
  void run(const std::uint8_t* d_src, std::size_t pitch, cudaStream_t stream);

 private:
  int width_, height_;
  std::uint8_t* d_scratch_ = nullptr;
  std::int32_t* d_hist_ = nullptr;
};

// Filter peers, replicate border, 8-bit gray.
void npp_gauss(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width, int height,
               int ksize, cudaStream_t stream);  // ksize 3..15 odd
void npp_filter32f(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width,
                   int height, const float* d_kernel, int kernel_width, int kernel_height, cudaStream_t stream);
void npp_box(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width, int height,
             int ksize, cudaStream_t stream);
void npp_sobel_dx_s16(const std::uint8_t* d_src, std::size_t src_pitch, std::int16_t* d_dst, std::size_t dst_pitch, int width,
                      int height, cudaStream_t stream);
void npp_laplace(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch, int width, int height,
                 cudaStream_t stream);
#endif

#if defined(WK_HAVE_NPP_RESIZE)
// nppiResize_8u_C3R_Ctx, whole image to whole image; `interp` is a wk::image::Interp value (area:
// NPPI_INTER_SUPER). Built where NPP's geometry library (nppig) is linked.
void npp_resize_8u_c3(const std::uint8_t* d_src, std::size_t src_pitch, int src_width, int src_height, std::uint8_t* d_dst,
                      std::size_t dst_pitch, int dst_width, int dst_height, int interp, cudaStream_t stream);
#endif

}  // namespace wk::bench
