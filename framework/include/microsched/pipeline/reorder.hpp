// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file reorder.hpp
//! Data relocation on the host, for helper threads to build the arrays an optimised kernel reads.
//! Both are gathers over a range, so several helper threads can fill disjoint ranges at once.

#include <cstddef>
#include <span>
#include <stdexcept>

#include "microsched/error.hpp"
#include "microsched/pipeline/thread_mapping.hpp"

namespace microsched::pipeline {

//! Data reordering by duplication (zhang2011 §4.1): out[i] = a[refs[i]] for i in [begin, end),
//! so that the kernel's A[P[tid]] becomes the coalesced A'[tid]. Elements referenced n times are
//! copied n times. Throws std::invalid_argument on a bad range or an out-of-range reference.
template <class T>
void reorder(std::span<const T> a, std::span<const index_t> refs, std::span<T> out,
             std::size_t begin, std::size_t end) {
  if (begin > end || end > refs.size() || end > out.size())
    throw_invalid("end", end, "reorder range outside the reference or output array");
  for (std::size_t i = begin; i < end; ++i) {
    const index_t r = refs[i];
    if (r >= a.size()) throw_invalid("refs[i]", r, "reference outside the referenced array");
    out[i] = a[r];
  }
}

//! Data layout transformation (zhang2010 §3.2): out[t] = in[source[t]] for t in [begin, end), so
//! that thread t of an unmodified kernel finds the input set of element source[t].
template <class T>
void relocate(std::span<const T> in, std::span<const index_t> source, std::span<T> out,
              std::size_t begin, std::size_t end) {
  reorder(in, source, out, begin, end);
}

}  // namespace microsched::pipeline
