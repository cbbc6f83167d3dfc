// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file lam.hpp
//! LAM, label-assign-move (zhang2010 §4.2, Figure 5): a data layout for a divergent loop or
//! branch in which most warp segments are pure (one value class), moving only the elements that
//! must move. Values are partitioned into R equal-width classes; each warp segment is labelled
//! with the class covering most of it while that class still has quota (floor(n_class / warp)
//! warps), elements foreign to their segment's label are moved into openings of their own class,
//! and what is left goes to the "mixed" segments.

#include <cstdint>
#include <span>
#include <vector>

#include "microsched/pipeline/thread_mapping.hpp"

namespace microsched::pipeline {

//! LAM parameters (the paper uses R = 10).
struct lam_arguments {
  int classes = 10;      //!< R: value sub-ranges; 1..65536
  int warp = warp_size;  //!< threads per warp segment
  //! The paper labels a segment "mixed" when the quota of its majority class is used up. With
  //! fill_quotas, a second pass labels those segments with the best-covering class that still
  //! has quota (any such class if none covers it), so every class fills floor(n_class / warp)
  //! pure warps: on random data the majority is nearly always the same class, and the paper's
  //! rule leaves half the warps mixed. false: the paper's labelling exactly.
  bool fill_quotas = true;
};

//! Label of a warp segment that no class could claim.
inline constexpr int lam_mixed = -1;

struct lam_result {
  //! Element i moves to destination[i] (destination[i] == i where it stays). A bijection.
  std::vector<index_t> destination;
  //! Class each full warp segment was labelled with, or lam_mixed (a partial last segment is
  //! always mixed).
  std::vector<int> warp_label;
  std::size_t moved = 0;  //!< elements whose destination differs from their location

  //! The mapping a redirected kernel reads: thread t works on element source()[t].
  [[nodiscard]] std::vector<index_t> source() const { return invert(destination); }
};

//! Scratch memory of LAM, reused across calls (one per helper thread): a transformation that
//! allocates its vectors anew every time serialises helper threads on page faults and unmaps.
struct lam_workspace {
  std::vector<std::uint32_t> class_of;
  std::vector<std::uint32_t> count, quota, coverage, cur;
  std::vector<std::uint32_t> touched;
  std::vector<std::vector<index_t>> to_fill;
  std::vector<index_t> to_mix;
  std::vector<int> warp_label;
  std::vector<index_t> destination;
  std::vector<std::uint32_t> keys;  //!< keys computed by a key_function (key_function.hpp)
};

//! Class of each value: R equal-width sub-ranges of [min(values), max(values)].
//! Throws std::invalid_argument when classes is outside 1..65536.
[[nodiscard]] std::vector<std::uint32_t> value_classes(std::span<const std::uint32_t> values,
                                                       int classes);

//! LAM on precomputed class ids in 0..classes-1, with the paper's labelling (fill_quotas = false).
//! Throws std::invalid_argument on a class id out
//! of range, classes outside 1..65536, or warp < 1.
[[nodiscard]] lam_result lam_on_classes(std::span<const std::uint32_t> class_of, int classes,
                                        int warp = warp_size);

//! LAM on raw values (trip counts, branch keys): value_classes, then lam_on_classes.
[[nodiscard]] lam_result lam(std::span<const std::uint32_t> values, const lam_arguments& args = {});

//! LAM on raw values without allocating (after the workspace has grown once): writes the
//! mapping a redirected kernel reads, source[t] = base + (element thread t works on), and returns
//! the number of elements moved. `source` must have values.size() entries. Same mapping as
//! lam(values, args).source(). Throws std::invalid_argument like lam().
std::size_t lam_source(std::span<const std::uint32_t> values, const lam_arguments& args,
                       lam_workspace& workspace, std::span<index_t> source, index_t base = 0);

//! Classes of `values` into `out` (size values.size()); what value_classes returns.
void value_classes_into(std::span<const std::uint32_t> values, int classes,
                        std::span<std::uint32_t> out);

}  // namespace microsched::pipeline
