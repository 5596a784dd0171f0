#pragma once
// Tuning tables per GPU architecture, CUB's way: plain data, one row per architecture from which
// it applies, newest first, the last row for every older one (min_sm 0). The measurements that
// justify a row sit next to the table that holds it.
#include <span>

namespace wk::detail {

// The compute capability of the current device as 10 * major + minor (90 for the H100), cached
// per device; 0 without a usable device.
int current_sm();

template <class T>
struct ArchTuning {
  int min_sm;
  T value;
};

// The usual row value: the order in which an op tries its rungs (rung_table.hpp).
using ArchOrder = ArchTuning<std::span<const char* const>>;

// The row for `sm`: the first whose min_sm is at most `sm`.
template <class T>
const T& tuning_for(std::span<const ArchTuning<T>> table, int sm = current_sm()) {
  for (const auto& row : table)
    if (sm >= row.min_sm) return row.value;
  return table.back().value;
}

}  // namespace wk::detail
