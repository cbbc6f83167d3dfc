// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file multi_scheduler.cuh
//! One task range [0, count) over several GPUs of one process, each task run exactly once. Every
//! GPU runs the ordinary single-GPU scheduler (its automatic schedule by default) on the ranges
//! it claims; a host thread per GPU (slot_worker.hpp) takes claims from a host atomic
//! (claim_plan.hpp), each claim interleaved granules that sample the whole range
//! (claim_layout.hpp), and keeps `in_flight` of them enqueued on its streams, so a slower GPU
//! claims less and the GPUs finish together. The call is asynchronous like a launch: it returns a
//! handle (multi_run) to wait on.
//!
//! \code
//! microsched::multi_gpu::multi_scheduler<my_program> sched;  // every visible GPU
//! auto run = sched.run([&](microsched::multi_gpu::device_slot s) {  // one program per GPU,
//!   return my_program{outputs[s.slot]};                            // outputs on that GPU
//! }, count);
//! run.wait();  // run.claims()[slot]: the ranges that GPU ran
//! \endcode
//!
//! Outputs: the factory builds each GPU's program, so each GPU writes to memory of its own (a
//! buffer indexed by the global task id, of which it fills the ranges it claimed), or to managed
//! or peer memory that all of them reach. With one slot the single-GPU scheduler runs the whole
//! range on the calling thread, with no claims (report() says so).

#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "microsched/device_buffer.hpp"
#include "microsched/error.hpp"
#include "microsched/multi_gpu/claim_layout.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/device_slots.hpp"
#include "microsched/multi_gpu/host_claim_counter.hpp"
#include "microsched/multi_gpu/multi_arguments.hpp"
#include "microsched/multi_gpu/multi_run.hpp"
#include "microsched/multi_gpu/slot_worker.hpp"
#include "microsched/scheduler.cuh"
#include "microsched/sliced_program.cuh"

namespace microsched::multi_gpu {

namespace detail {
//! `in_flight` CUDA events (timing off) of one device: claim k records event k mod in_flight,
//! and claim k + in_flight is taken once that event has passed.
class event_ring {
 public:
  explicit event_ring(int size) : events_(static_cast<std::size_t>(size), nullptr) {
    for (cudaEvent_t& e : events_) {
      MICROSCHED_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
  }
  ~event_ring() {
    for (cudaEvent_t e : events_) {
      if (e != nullptr) cudaEventDestroy(e);
    }
  }
  event_ring(const event_ring&) = delete;
  event_ring& operator=(const event_ring&) = delete;
  [[nodiscard]] cudaEvent_t operator[](std::size_t k) const { return events_[k % events_.size()]; }
  [[nodiscard]] std::size_t size() const { return events_.size(); }

 private:
  std::vector<cudaEvent_t> events_;
};

//! What a lane's timed run costs: it waits for the other lanes' claims to end and they for it,
//! about one claim's tail of GPU time, so decided choices are timed that much more rarely.
inline constexpr double lane_timed_run_cost_ms = 0.25;

//! One stream of a slot, the single-GPU scheduler whose runs it takes (a scheduler's runs share
//! its pool counter, so each stream has its own), and its last claim's place in the slot's ring.
template <class Program>
struct lane {
  lane(const schedule_arguments& schedule, bool shared) : sched(schedule) {
    if (shared && schedule.strategy == pool_strategy::automatic)
      sched.set_timed_run_cost(lane_timed_run_cost_ms);
  }
  scheduler<sliced_program<Program>> sched;
  cuda_stream stream;
  //! The claim whose ring event marks this lane's last claim (none before the first). A later
  //! claim may have recorded that event since: waiting on it then waits for more, never less.
  std::optional<std::size_t> last_claim;
};

//! A slot's lanes (`streams` of them) and the events of its claims in flight, on its GPU.
//! `claiming`: the slot takes claims (more than one slot), so its lanes share the GPU.
template <class Program>
struct slot_lanes {
  slot_lanes(const schedule_arguments& schedule, const claim_settings& claims, bool claiming = true)
      : ring(claims.in_flight) {
    for (int l = 0; l < claims.streams; ++l)
      lanes.push_back(std::make_unique<lane<Program>>(schedule, claiming && claims.streams > 1));
  }
  std::vector<std::unique_ptr<lane<Program>>> lanes;
  event_ring ring;
};

//! Enqueues claim `k`, the run of `slice`, on the next lane in turn and records its ring event.
//! A run that may be timed (the automatic schedule choosing, or checking its choice) runs alone
//! on the GPU: it waits for the other lanes' last claims and they wait for it, since a run timed
//! beside another claim measures both.
template <class Program>
void enqueue_claim(slot_lanes<Program>& slot, std::size_t k, const Program& program,
                   const task_slice& slice) {
  lane<Program>& mine = *slot.lanes[k % slot.lanes.size()];
  const bool alone = slot.lanes.size() > 1 && !mine.sched.next_run_untimed(slice.size());
  if (alone) {
    for (const auto& other : slot.lanes) {
      if (other.get() != &mine && other->last_claim) {
        MICROSCHED_CUDA_TRY(
            cudaStreamWaitEvent(mine.stream.get(), slot.ring[*other->last_claim], 0));
      }
    }
  }
  mine.sched.run(sliced_program<Program>{program, slice}, slice.size(), mine.stream.get());
  MICROSCHED_CUDA_TRY(cudaEventRecord(slot.ring[k], mine.stream.get()));
  mine.last_claim = k;
  if (alone) {
    for (const auto& other : slot.lanes) {
      if (other.get() != &mine) {
        MICROSCHED_CUDA_TRY(cudaStreamWaitEvent(other->stream.get(), slot.ring[k], 0));
      }
    }
  }
}

//! The claim loop of one slot, shared by the process's threads and the MPI ranks: take a claim
//! from `next()` (empty: done), enqueue the scheduler's run of its slice of `layout` on the next
//! lane's stream in turn, keep at most ring.size() claims enqueued. Appends each claim to
//! `taken`, and stamps `when` (if given) once the first claim is enqueued and once the last has
//! finished. `stop` ends it early (another slot failed).
template <class Program, class NextClaim>
void claim_loop(slot_lanes<Program>& slot, const Program& program, const claim_layout& layout,
                NextClaim&& next, std::vector<claimed_range>& taken,
                const std::atomic<bool>* stop = nullptr, slot_stamps* when = nullptr) {
  std::size_t k = 0;
  for (;; ++k) {
    if (k >= slot.ring.size()) MICROSCHED_CUDA_TRY(cudaEventSynchronize(slot.ring[k]));
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return;
    const claimed_range r = next();
    if (r.empty()) break;
    enqueue_claim(slot, k, program, layout.slice(r));
    if (k == 0 && when != nullptr) when->enqueued();
    taken.push_back(r);
  }
  if (when == nullptr || k == 0) return;
  for (const auto& l : slot.lanes) MICROSCHED_CUDA_TRY(cudaStreamSynchronize(l->stream.get()));
  when->finished();
}
}  // namespace detail

//! @tparam Program a task program (task_program.hpp) or a managed-branch program; each slot runs
//!   scheduler<sliced_program<Program>> on its claims.
//! A multi_scheduler may be reused for any number of runs; a run begins once the host threads of
//! the previous one have finished claiming (its last claims may still be running, in stream
//! order). Destroying it waits for its last run.
template <class Program>
class multi_scheduler {
 public:
  using slice_scheduler = scheduler<sliced_program<Program>>;

  //! Builds claims.streams single-GPU schedulers and streams per slot, each on its GPU. Throws
  //! std::invalid_argument for bad arguments (a device that is not visible, a bad schedule or
  //! claim setting), no_device_error without a GPU.
  explicit multi_scheduler(multi_arguments args = {}) : args_(std::move(args)) {
    validate(args_.claims);
    devices_ = resolve_devices(args_.devices);
    validate_range(0, static_cast<int>(devices_.size()));
    for (std::size_t s = 0; s < devices_.size(); ++s) {
      const device_guard on(devices_[s]);
      slots_.push_back(std::make_unique<detail::slot_lanes<Program>>(args_.schedule, args_.claims,
                                                                     devices_.size() > 1));
    }
    if (devices_.size() > 1) {
      for (std::size_t s = 0; s < devices_.size(); ++s)
        workers_.push_back(std::make_unique<detail::slot_worker>());
    }
    peers_ = peer_access_summary(devices_);
  }

  ~multi_scheduler() {
    if (last_) last_->join();
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      const device_guard on(devices_[s]);
      for (const auto& l : slots_[s]->lanes) cudaStreamSynchronize(l->stream.get());
    }
  }
  multi_scheduler(const multi_scheduler&) = delete;
  multi_scheduler& operator=(const multi_scheduler&) = delete;

  [[nodiscard]] int slots() const { return static_cast<int>(devices_.size()); }
  [[nodiscard]] const std::vector<int>& devices() const { return devices_; }
  [[nodiscard]] const multi_arguments& arguments() const { return args_; }
  //! The single-GPU scheduler of `slot`'s first stream (its report() says what its automatic
  //! schedule chose).
  [[nodiscard]] slice_scheduler& scheduler_of(int slot) {
    return slots_.at(static_cast<std::size_t>(slot))->lanes.front()->sched;
  }

  //! Enqueues every task of [0, count) exactly once over the slots and returns at once. `make`
  //! is called once per slot, on the calling thread with that slot's GPU current:
  //! `Program make(device_slot)`. Zero tasks is a no-op. Throws std::invalid_argument for more
  //! than max_range_tasks tasks, or than the program's begin() names (validate_begin_ids),
  //! before any device work.
  template <class MakeProgram>
  requires std::is_invocable_r_v<Program, MakeProgram&, device_slot> multi_run
  run(MakeProgram&& make, task_id count) {
    validate_range(count, slots());
    validate_begin_ids<Program>(count);  // the slices call begin() with the range's own ids
    if (last_) last_->join();
    auto state = std::make_shared<detail::run_state>(slots_.size());
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      for (const auto& l : slots_[s]->lanes)
        state->streams.emplace_back(devices_[s], l->stream.get());
    }
    last_ = state;
    if (count == 0) return multi_run(state);
    std::vector<Program> programs;
    programs.reserve(slots_.size());
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      const device_guard on(devices_[s]);
      programs.push_back(make(device_slot{static_cast<int>(s), devices_[s]}));
    }
    if (slots_.size() == 1) {  // the single-GPU path: one run of the whole range, no claim
      const device_guard on(devices_[0]);
      detail::lane<Program>& l = *slots_[0]->lanes.front();
      l.sched.run(sliced_program<Program>{programs[0], task_slice::range(0, count)}, count,
                  l.stream.get());
      state->stamps[0].enqueued();
      state->claims[0].push_back({0, count});
      state->layout = contiguous_layout(count);
      return multi_run(state);
    }
    counter_.reset();
    stop_.store(false);
    const claim_layout layout = layout_of(count);
    state->layout = layout;
    const task_id smallest = smallest_units(layout, slots(), args_.claims);
    state->loops.store(slots(), std::memory_order_relaxed);
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      workers_[s]->post(
          [this, s, count, layout, smallest, program = programs[s], st = state.get()] {
            try {
              const device_guard on(devices_[s]);
              bool first = true;
              auto next = [&]() -> claimed_range {
                if (args_.split == split_mode::equal) {
                  if (!first) return {};
                  first = false;
                  return equal_share(count, slots(), static_cast<int>(s));
                }
                return take_claim(counter_, layout.units(), slots(), smallest, args_.claims);
              };
              detail::claim_loop(*slots_[s], program, layout, next, st->claims[s], &stop_,
                                 &st->stamps[s]);
            } catch (...) {
              st->errors[s] = std::current_exception();
              stop_.store(true);
            }
            st->loop_ended();
          });
    }
    return multi_run(state);
  }

  //! The same program on every slot: its pointers must reach every GPU (managed or peer
  //! memory), or it writes nothing.
  multi_run run(const Program& program, task_id count) {
    return run([&](device_slot) { return program; }, count);
  }

  //! What a run of `count` tasks does: the path (single GPU, or claims from a host counter, or
  //! the equal split), the GPUs, the claim sizes, what the GPUs can reach of each other.
  [[nodiscard]] std::string report(task_id count) const {
    std::string gpus;
    for (const int d : devices_) {
      if (!gpus.empty()) gpus += ',';
      gpus += std::to_string(d);
    }
    const std::string peers = "; peer access: " + peers_ + " (host claims need none)";
    if (slots_.size() == 1) {
      return "one GPU (" + gpus + "): the single-GPU scheduler runs all " + std::to_string(count) +
             " tasks, no claims";
    }
    if (args_.split == split_mode::equal) {
      return std::to_string(slots_.size()) + " slots on GPUs " + gpus +
             ": static equal split, one part of about " + std::to_string(count / slots_.size()) +
             " tasks each" + peers;
    }
    return std::to_string(slots_.size()) + " slots on GPUs " + gpus + ": " +
           describe_claims(layout_of(count), slots(), args_.claims) + " from a host counter, " +
           std::to_string(args_.claims.in_flight) + " in flight per slot on " +
           std::to_string(args_.claims.streams) + " streams" + peers;
  }

  //! The layout of a run of `count` tasks: contiguous for the equal split, else
  //! claims_layout().
  [[nodiscard]] claim_layout layout_of(task_id count) const {
    if (slots_.size() == 1 || args_.split == split_mode::equal) return contiguous_layout(count);
    return claims_layout(count, slots(), args_.claims);
  }

 private:
  multi_arguments args_;
  std::vector<int> devices_;
  //! (slot) -> its lanes (scheduler and stream) and events
  std::vector<std::unique_ptr<detail::slot_lanes<Program>>> slots_;
  std::string peers_;
  host_claim_counter counter_;
  std::atomic<bool> stop_{false};
  std::shared_ptr<detail::run_state> last_;  //!< the last run, joined before the next begins
  //! (slot) -> the thread that runs its claim loops; none with one slot. Declared last, so the
  //! workers end before the state their jobs use.
  std::vector<std::unique_ptr<detail::slot_worker>> workers_;
};

}  // namespace microsched::multi_gpu
