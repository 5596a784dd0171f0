#pragma once
// One function per benchmarked operation; the name is the operation's name everywhere.
#include <cstddef>
#include <cstdint>

#include "bench_util.hpp"

namespace wk::bench {

int bench_gray(const Options& options);

#if defined(WK_HAVE_NPP)
// NPP peers (npp_peers.cpp), only when NPP was found at configure time.
void npp_rgb_to_gray(const std::uint8_t* d_src, std::size_t src_pitch, std::uint8_t* d_dst, std::size_t dst_pitch,
                     int width, int height, cudaStream_t stream);
#endif

}  // namespace wk::bench
