#pragma once
// The rungs every op of the convolution family has: the generic 2-D ladder (naive ..
// register_blocked), tensor_core and the generic separable pass. An op's rung table is these
// rows followed by the op's own (conv_family_rungs). The op's Call type provides
//   bool run_2d(Filter2D kernel) const;  // launches the 2-D kernel (every call takes it)
//   bool run_mma() const;                // tensor_core; false when it does not apply
//   bool run_separable() const;          // two 1-D passes; false for a kernel of rank > 1
#include <array>
#include <cstddef>

#include "core/rung_table.hpp"
#include "image/filter/filter_gpu.hpp"
#include "image/rungs.hpp"

namespace wk::image::detail {

using wk::detail::Rung;

template <class Call, Filter2D K>
bool try_2d(const Call& c) {
  return c.run_2d(K);
}
template <class Call>
bool try_mma(const Call& c) {
  return c.run_mma();
}
template <class Call>
bool try_separable(const Call& c) {
  return c.run_separable();
}

inline constexpr std::size_t kConvFamilyRungs = 7;

template <class Call, std::size_t N>
constexpr std::array<Rung<Call>, kConvFamilyRungs + N> conv_family_rungs(const std::array<Rung<Call>, N>& own) {
  std::array<Rung<Call>, kConvFamilyRungs + N> table{{
      {{"naive", "1 px/thread, weights in global memory"}, &try_2d<Call, Filter2D::naive>},
      {{"constant_weights", "weights in constant memory"}, &try_2d<Call, Filter2D::constant_weights>},
      {{"shared_tiles", "tile + halo in shared memory"}, &try_2d<Call, Filter2D::shared_tiles>},
      {{"cached_halo", "tile in shared memory, halo through L1"}, &try_2d<Call, Filter2D::cached_halo>},
      {{"register_blocked", "16 px/thread register window"}, &try_2d<Call, Filter2D::register_blocked>},
      {{"tensor_core", "8-bit: fp16 mma.sync on the tensor cores, fp32 sums"}, &try_mma<Call>},
      {{"separable", "two 1-D passes, row pass through shared memory (rank-1 kernels)"}, &try_separable<Call>},
  }};
  for (std::size_t i = 0; i < N; ++i) table[kConvFamilyRungs + i] = own[i];
  return table;
}

}  // namespace wk::image::detail

namespace wk::image::detail {

// A call of one linear filter: the 2-D taps, their rank-1 factors when the kernel has them, and
// the epilogue. conv and box run on it as is; other ops extend it.
struct TapsCall {
  GpuImage s, d;
  BorderArgs b;
  Epilogue e;
  const Taps2D* taps = nullptr;
  const Taps1D* factors = nullptr;  // nullptr: rank > 1
  cudaStream_t stream = nullptr;

  bool run_2d(Filter2D k) const {
    filter2d(k, s, d, *taps, b, e, stream);
    return true;
  }
  bool run_mma() const { return filter2d_mma(s, d, *taps, b, e, stream); }
  bool run_separable() const {
    if (!factors) return false;
    separable_filter(s, d, *factors, b, e, stream);
    return true;
  }
};

// The table of a TapsCall op: the conv family's rungs and nothing else.
std::span<const Rung<TapsCall>> taps_rungs();

// The name of a generic 2-D rung (the table's first rows follow Filter2D's order).
inline const char* filter2d_rung_name(Filter2D k) { return taps_rung_infos()[static_cast<std::size_t>(k)].name; }

}  // namespace wk::image::detail
