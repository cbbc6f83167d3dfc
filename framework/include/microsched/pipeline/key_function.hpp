// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file key_function.hpp
//! User-supplied functions that compute each element's branch key (LAM, regrouping) or reference
//! index (job swapping, data reordering) when it is not a plain input array (zhang2011 §3: the
//! transformation needs the keys, which the program may derive from several inputs). The
//! algorithms take a `key_function` and an element range; they ask it for the keys of that range
//! once, into a buffer, and then work exactly as on a precomputed array. A transformation that
//! calls them on a helper thread needs nothing else: whatever the function throws propagates, and
//! the pipeline reports it and runs the original kernel for that chunk.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "microsched/error.hpp"
#include "microsched/pipeline/job_swap.hpp"
#include "microsched/pipeline/lam.hpp"
#include "microsched/pipeline/reorder.hpp"
#include "microsched/pipeline/thread_mapping.hpp"

namespace microsched::pipeline {

//! The keys (or references) of elements, computed on demand. Copyable; callable from several
//! helper threads at once if the function it wraps is.
class key_function {
 public:
  //! Key of one element, from its index (in the chunk, or whatever index space the caller uses).
  using element_fn = std::function<std::uint32_t(std::size_t element)>;
  //! Keys of elements [begin, begin + out.size()) into out: one call per range, no per-element
  //! indirect call.
  using range_fn = std::function<void(std::size_t begin, std::span<std::uint32_t> out)>;

  key_function() = default;
  //! Throws std::invalid_argument for an empty function.
  [[nodiscard]] static key_function per_element(element_fn f);
  //! Throws std::invalid_argument for an empty function.
  [[nodiscard]] static key_function per_range(range_fn f);
  //! A plain array of keys (element i has key keys[i]); the array must outlive the function.
  [[nodiscard]] static key_function array(std::span<const std::uint32_t> keys);

  [[nodiscard]] explicit operator bool() const noexcept { return static_cast<bool>(range_); }
  //! Writes the keys of [begin, begin + out.size()). Throws std::invalid_argument if empty;
  //! otherwise whatever the user's function throws.
  void fill(std::size_t begin, std::span<std::uint32_t> out) const;
  //! The keys of [begin, end), allocated.
  [[nodiscard]] std::vector<std::uint32_t> keys(std::size_t begin, std::size_t end) const;

 private:
  explicit key_function(range_fn f) : range_(std::move(f)) {}
  range_fn range_;
};

//! LAM over the keys of elements [begin, end): source[t] = begin + element thread t works on
//! (source.size() == end - begin). The keys go to workspace.keys, so after the workspace has grown
//! once nothing is allocated. Same mapping as lam_source on the precomputed keys with base begin.
std::size_t lam_source(const key_function& keys, std::size_t begin, std::size_t end,
                       const lam_arguments& args, lam_workspace& workspace,
                       std::span<index_t> source);

//! Regrouping over the keys of [begin, end); the mapping is relative to begin, like regroup() on
//! the precomputed keys of the range.
[[nodiscard]] std::vector<index_t> regroup(const key_function& keys, std::size_t begin,
                                           std::size_t end, int warp = warp_size);

//! Job swapping for A[refs(job)] over jobs [begin, end); relative to begin, like job_swap() on the
//! precomputed references of the range.
[[nodiscard]] std::vector<index_t> job_swap(const key_function& refs, std::size_t begin,
                                            std::size_t end, const job_swap_arguments& args = {});

//! Data reordering by duplication with computed references: out[i] = a[refs(i)] for i in
//! [begin, end). `scratch` holds the references of the range (resized; reuse it per thread).
template <class T>
void reorder(std::span<const T> a, const key_function& refs, std::span<T> out, std::size_t begin,
             std::size_t end, std::vector<std::uint32_t>& scratch) {
  if (begin > end || end > out.size())
    throw_invalid("end", end, "reorder range outside the output array");
  scratch.resize(end - begin);
  refs.fill(begin, scratch);
  for (std::size_t i = begin; i < end; ++i) {
    const index_t r = scratch[i - begin];
    if (r >= a.size()) throw_invalid("refs[i]", r, "reference outside the referenced array");
    out[i] = a[r];
  }
}

}  // namespace microsched::pipeline
