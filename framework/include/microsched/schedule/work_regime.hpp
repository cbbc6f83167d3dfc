// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file work_regime.hpp
//! Calls whose work jumps between short and long (an animation's frames) as pure host logic.
//! The calibration decides for the calls it sees most; where it keeps the direct mapping, a call
//! that follows one far longer than the direct reference runs the long-work candidate instead
//! (the budgeted strategy), timed, while the calls stay long and it beats the direct mapping's
//! last long time by the margin. The previous call's time is the signal: a direct run's own clock
//! readings (work_stamps), or the events of a long-work run, so no short call pays for an event.
//!
//! The rules:
//! - While the calls are long, the calibration times no run: its drift check is for the work the
//!   choice was made for, and a restart on long work would time every candidate again.
//! - A call is long when it takes at least `long_factor` x the direct reference and at least
//!   `long_floor_ms`; the next call then runs the long-work candidate.
//! - A long-work run slower than (1 + margin) x the direct mapping's last long time (by its
//!   readings, which miss the last blocks: a lower bound) gives the stretch back to direct until
//!   a short call ends it: such work gains nothing from it.
//! - A short call ends the stretch; the next runs direct.

namespace microsched {

//! Slots of a direct run's clock readings (driver/direct_kernel.cuh writes them).
inline constexpr int stamp_slots = 16;

struct work_regime_settings {
  double long_factor = 4.0;    //!< a call this many times the direct reference is long ...
  double long_floor_ms = 0.2;  //!< ... and at least this long: enough to pay a timed run
  double margin = 0.03;        //!< a long-work run this much slower than direct's gives up
};

class work_regime {
 public:
  //! Throws std::invalid_argument for a factor below 1, a negative floor or a margin outside
  //! [0, 1).
  explicit work_regime(work_regime_settings settings = {});

  //! The time (ms) at and above which a call counts as long, for a direct reference of
  //! `reference_ms`.
  [[nodiscard]] double long_ms(double reference_ms) const;
  //! A direct run took `ms` (its stamps' estimate); `reference_ms` is the choice's calibrated time.
  void direct_ran(double ms, double reference_ms);
  //! A long-work run took `ms`; `reference_ms` as above.
  void long_ran(double ms, double reference_ms);
  //! Whether the next call runs the long-work candidate.
  [[nodiscard]] bool next_long() const { return long_ && !gave_up_; }
  //! The last call was long (the calibration times no run now: this work is the regime's).
  [[nodiscard]] bool in_long() const { return long_; }
  //! Stretches of long calls seen, and those the long-work candidate gave back to direct.
  [[nodiscard]] int stretches() const { return stretches_; }
  [[nodiscard]] int given_back() const { return given_back_; }

 private:
  work_regime_settings settings_;
  bool long_ = false;        //!< the last call was long
  bool gave_up_ = false;     //!< this stretch runs direct: the long-work run did not pay
  double direct_long_ms_ = 0;  //!< the direct mapping's time on the stretch's last direct run
  int stretches_ = 0;
  int given_back_ = 0;
};

}  // namespace microsched
