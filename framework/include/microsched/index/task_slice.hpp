// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file task_slice.hpp
//! Which ids of a task range a slice holds, and the map from the slice's own ids [0, size()) to
//! the range's. Two forms:
//! - a contiguous range [first, first + count) (task_slice::range), which a multi-GPU claim runs;
//! - residues of interleaved granules (task_slice::residues): the range is cut into granules of
//!   2^shift ids, granule g belongs to residue g mod period, and a slice holds the residues
//!   [from, to). Such a slice samples the whole range evenly (every part of an image, in blocks
//!   of whole rows), so slices of one call compare per task: the automatic schedule times
//!   candidates on them inside a single call.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "microsched/config.hpp"
#include "microsched/index/fast_divmod.hpp"

namespace microsched {

class task_slice {
 public:
  task_slice() = default;

  //! Ids [first, first + count).
  [[nodiscard]] static task_slice range(task_id first, task_id count) {
    task_slice s;
    s.first_ = first;
    s.size_ = count;
    return s;
  }

  //! Residues [from, to) of `period` in a range of `total` ids cut into granules of 2^shift.
  //! Throws std::invalid_argument for an empty or out-of-range residue set or a shift above 40.
  [[nodiscard]] static task_slice residues(task_id total, int shift, std::uint32_t period,
                                           std::uint32_t from, std::uint32_t to) {
    if (period < 1 || from >= to || to > period) {
      throw std::invalid_argument("task_slice: residues [" + std::to_string(from) + ", " +
                                  std::to_string(to) + ") of period " + std::to_string(period) +
                                  " is empty or out of range");
    }
    if (shift < 0 || shift > 40) {
      throw std::invalid_argument("task_slice: granule shift " + std::to_string(shift) +
                                  " must be in 0..40");
    }
    task_slice s;
    s.shift_ = shift;
    s.period_ = period;
    s.from_ = from;
    s.width_ = fast_divmod<task_id>(to - from);
    // Granules [0, full) are whole; granule `full` holds the last `partial` ids, if any.
    const task_id granule = task_id{1} << shift;
    const task_id full = total >> shift;
    const task_id partial = total & (granule - 1);
    const task_id rows = full / period;  // whole periods of granules
    const task_id left = full % period;  // granules of the last, incomplete period
    task_id granules = rows * (to - from);
    if (left > from) granules += (left < to ? left : to) - from;
    s.size_ = granules << shift;
    if (partial > 0 && left >= from && left < to) s.size_ += partial;
    return s;
  }

  //! Ids in the slice.
  [[nodiscard]] MICROSCHED_HD task_id size() const { return size_; }

  //! The wrapped program's id of the slice's id `local` (in [0, size())).
  [[nodiscard]] MICROSCHED_HD task_id operator()(task_id local) const {
    if (period_ == 0) return first_ + local;
    const task_id granule = local >> shift_;
    task_id row = 0;
    task_id column = 0;
    width_.divmod(granule, row, column);
    return ((row * period_ + from_ + column) << shift_) | (local & ((task_id{1} << shift_) - 1));
  }

 private:
  task_id first_ = 0;
  task_id size_ = 0;
  int shift_ = 0;
  std::uint32_t period_ = 0;  //!< 0: the contiguous form
  std::uint32_t from_ = 0;
  fast_divmod<task_id> width_{1};
};

}  // namespace microsched
