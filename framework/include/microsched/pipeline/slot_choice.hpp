// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file slot_choice.hpp
//! Which staging slot a chunk's remap is written to. Pure logic over two questions the driver
//! answers per slot, so it is tested on the host.

#include <cstddef>

namespace microsched::pipeline {

//! The slot for chunk `chunk` among `slots`, or -1 when none may be used now (the chunk then runs
//! the original kernel, fallback::slot_busy).
//! - Partial methods (`whole_chunks` false): slot chunk % slots, as in zhang2011, if reusable.
//! - Whole-chunk methods select a share of the chunks, so any free slot: with a fixed slot a
//!   selected chunk could find the slot of chunk - slots still copying while the others idle. A
//!   slot whose last optimised kernel has run (`released`) is preferred: the upload waits for that
//!   kernel on the copy stream, and a wait for a kernel still queued behind originals would hold
//!   every later upload. Slots are tried from chunk % slots on.
//! `reusable(k)`: slot k's host staging may be rewritten (its last chunk launched or abandoned,
//! every piece returned, its copy off the host buffer). `released(k)`: slot k's last optimised
//! kernel has ended, or none was launched.
template <class Reusable, class Released>
[[nodiscard]] int choose_slot(std::size_t chunk, std::size_t slots, bool whole_chunks,
                              Reusable&& reusable, Released&& released) {
  if (slots == 0) return -1;
  if (!whole_chunks) {
    const std::size_t k = chunk % slots;
    return reusable(k) ? static_cast<int>(k) : -1;
  }
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t j = 0; j < slots; ++j) {
      const std::size_t k = (chunk + j) % slots;
      if (pass == 0 && !released(k)) continue;
      if (reusable(k)) return static_cast<int>(k);
    }
  return -1;
}

}  // namespace microsched::pipeline
