// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The split march/shade wavefront of the ray caster (raycast_split_wavefront.cuh): the queues'
// device side (warp-aggregated takes and appends), the two kernels, and the host loop.
#include <cmath>
#include <stdexcept>
#include <string>

#include "microsched/error.hpp"
#include "raycast/raycast_split_wavefront.cuh"

namespace microsched::switching_workloads::detail {

namespace {

using kernels::raycast::ray_state;
using kernels::raycast::raycast_program;

//! A queue entry's fields, each an array of `capacity` 32-bit words; the march queue holds the
//! first march_fields of them, the shade queue also what the march found (f_next, level).
namespace fields {
enum : int { task, dir_x, dir_y, dir_z, t_enter, sample, last_sample, f_prev, f_next, level };
}  // namespace fields
using namespace fields;
constexpr int march_fields = fields::f_next;
constexpr int shade_fields = fields::level + 1;
constexpr int accumulated_fields = 4;  // colour (3), opacity
//! Device words per queue generation: its length and the entries taken so far.
constexpr int counter_words = 2;
constexpr int march_slot = 0;  // counters_: march queues of even and odd rounds, then shade's
constexpr int shade_slot = 2;

struct ray_queue {
  std::uint32_t* words = nullptr;
  std::size_t capacity = 0;
  [[nodiscard]] __device__ std::uint32_t& at(int f, std::uint32_t i) const {
    return words[static_cast<std::size_t>(f) * capacity + i];
  }
  [[nodiscard]] __device__ float real(int f, std::uint32_t i) const {
    return __uint_as_float(at(f, i));
  }
  __device__ void set(int f, std::uint32_t i, float v) const { at(f, i) = __float_as_uint(v); }
  __device__ void set(int f, std::uint32_t i, int v) const {
    at(f, i) = static_cast<std::uint32_t>(v);
  }
};

//! Entry i's ray; `shading`: the shade queue's entry (the march's crossing with it).
__device__ __forceinline__ ray_state load_ray(const ray_queue& q, std::uint32_t i, bool shading) {
  ray_state r;
  r.dir = {q.real(dir_x, i), q.real(dir_y, i), q.real(dir_z, i)};
  r.t_enter = q.real(t_enter, i);
  r.n = static_cast<int>(q.at(sample, i));
  r.n_end = static_cast<int>(q.at(last_sample, i));
  r.f_prev = q.real(f_prev, i);
  r.f_next = shading ? q.real(f_next, i) : r.f_prev;  // a march overwrites both before use
  r.level = shading ? static_cast<int>(q.at(level, i)) : -1;
  return r;
}

__device__ __forceinline__ void store_ray(const ray_queue& q, std::uint32_t i, std::uint32_t t,
                                          const ray_state& r, bool shading) {
  q.at(task, i) = t;
  q.set(dir_x, i, r.dir.x);
  q.set(dir_y, i, r.dir.y);
  q.set(dir_z, i, r.dir.z);
  q.set(t_enter, i, r.t_enter);
  q.set(sample, i, r.n);
  q.set(last_sample, i, r.n_end);
  q.set(f_prev, i, r.f_prev);
  if (!shading) return;
  q.set(f_next, i, r.f_next);
  q.set(level, i, r.level);
}

//! Colour and opacity per ray (by task): only shading changes them.
struct accumulators {
  float* values = nullptr;
  std::size_t rays = 0;
  __device__ void load(ray_state& r, std::uint32_t t) const {
    r.colour = {values[t], values[rays + t], values[2 * rays + t]};
    r.alpha = values[3 * rays + t];
  }
  __device__ void store(const ray_state& r, std::uint32_t t) const {
    values[t] = r.colour.x;
    values[rays + t] = r.colour.y;
    values[2 * rays + t] = r.colour.z;
    values[3 * rays + t] = r.alpha;
  }
};

constexpr unsigned full_warp = 0xffffffffu;

//! The first of the 32 entries the calling warp takes next: one atomicAdd per warp.
__device__ __forceinline__ std::uint32_t take_entries(std::uint32_t* taken) {
  std::uint32_t first = 0;
  if ((threadIdx.x & 31u) == 0) first = atomicAdd(taken, 32u);
  return __shfl_sync(full_warp, first, 0);
}

//! Warp-aggregated append: one atomicAdd per warp; the entry of each lane that appends.
__device__ __forceinline__ std::uint32_t append_entry(std::uint32_t* length, bool append) {
  const unsigned lanes = __ballot_sync(full_warp, append);
  if (lanes == 0) return 0;
  const unsigned lane = threadIdx.x & 31u;
  const int leader = __ffs(static_cast<int>(lanes)) - 1;
  std::uint32_t first = 0;
  if (lane == static_cast<unsigned>(leader)) first = atomicAdd(length, __popc(lanes));
  first = __shfl_sync(full_warp, first, leader);
  return first + static_cast<std::uint32_t>(__popc(lanes & ((1u << lane) - 1u)));
}

//! Ends a ray: its pixel, and its counter on counted runs.
__device__ __forceinline__ void end_ray(const raycast_program& program, std::uint32_t* counts,
                                        std::uint32_t t, const ray_state& r) {
  program.end(t, r);
  if (counts != nullptr) atomicAdd(counts + t, 1u);
}

//! One kernel's queues: it takes entries of `in` (length and taken at in_counter), appends to
//! `out` (length at out_length) and zeroes `reset`, the counters of the queue the next kernel
//! appends to (nobody reads them meanwhile).
struct kernel_queues {
  ray_queue in, out;
  std::uint32_t* in_counter = nullptr;
  std::uint32_t* out_length = nullptr;
  std::uint32_t* reset = nullptr;
};

__device__ __forceinline__ void reset_next(const kernel_queues& q) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    q.reset[0] = 0;
    q.reset[1] = 0;
  }
}

//! March only: each ray to its next crossing (appended to the shade queue) or its end. First:
//! the rays begin here, ray t at entry t; no shading code, so fewer registers than vanilla's.
template <bool First, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    march_rays(const raycast_program program, const kernel_queues q, const accumulators acc,
               std::uint32_t* counts, std::uint32_t rays) {
  reset_next(q);
  const std::uint32_t length = First ? rays : q.in_counter[0];
  if (length == 0) return;
  const auto& view = program.view;
  for (std::uint32_t first = take_entries(q.in_counter + 1); first < length;
       first = take_entries(q.in_counter + 1)) {
    const std::uint32_t i = first + (threadIdx.x & 31u);
    bool crossed = false;
    std::uint32_t t = i;
    ray_state r;
    if (i < length) {
      if constexpr (First) {
        r = program.begin(t);
      } else {
        t = q.in.at(task, i);
        r = load_ray(q.in, i, false);
      }
      // A ray in the march queue is not opaque: it ends here only at its last sample.
      do {
        crossed = kernels::raycast::march_window(r, view);
      } while (!crossed && r.n < r.n_end);
      if (!crossed) {
        if constexpr (!First) acc.load(r, t);
        end_ray(program, counts, t, r);
      } else if constexpr (First) {
        acc.store(r, t);  // nothing accumulated yet: the shade kernel reads these
      }
    }
    const std::uint32_t entry = append_entry(q.out_length, crossed);
    if (crossed) store_ray(q.out, entry, t, r, true);
  }
}

//! Shades every ray of the shade queue; an ended ray writes its pixel, the others are appended
//! to the next round's march queue.
template <int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    shade_rays(const raycast_program program, const kernel_queues q, const accumulators acc,
               std::uint32_t* counts) {
  reset_next(q);
  const std::uint32_t length = q.in_counter[0];
  if (length == 0) return;
  const auto& view = program.view;
  for (std::uint32_t first = take_entries(q.in_counter + 1); first < length;
       first = take_entries(q.in_counter + 1)) {
    const std::uint32_t i = first + (threadIdx.x & 31u);
    bool marches = false;
    std::uint32_t t = 0;
    ray_state r;
    if (i < length) {
      t = q.in.at(task, i);
      r = load_ray(q.in, i, true);
      acc.load(r, t);
      kernels::raycast::shade(r, view);
      if (kernels::raycast::ray_done(r, view)) {
        end_ray(program, counts, t, r);
      } else {
        marches = true;
        acc.store(r, t);
      }
    }
    const std::uint32_t entry = append_entry(q.out_length, marches);
    if (marches) store_ray(q.out, entry, t, r, false);
  }
}

//! Blocks of `kernel` resident on the device at once, at most one per BlockThreads rays.
template <class Kernel>
unsigned persistent_blocks(Kernel kernel, int block_threads, task_id rays) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  MICROSCHED_CUDA_TRY(cudaGetDevice(&device));
  MICROSCHED_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  MICROSCHED_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  const std::uint64_t resident =
      static_cast<std::uint64_t>(sms) * static_cast<std::uint64_t>(per_sm > 0 ? per_sm : 1);
  const std::uint64_t needed = (rays + block_threads - 1) / block_threads;
  return static_cast<unsigned>(resident < needed ? resident : needed);
}

task_id checked_rays(task_id rays) {
  // Queue entries are 32-bit, and a warp's take may pass the length by 32 without wrapping.
  if (rays == 0 || rays > (task_id{1} << 31)) {
    throw_invalid("split wavefront rays", rays, "must be in 1..2^31 (queue entries are 32-bit)");
  }
  return rays;
}

}  // namespace

raycast_split_wavefront::raycast_split_wavefront(task_id rays)
    : rays_(checked_rays(rays)),
      march_state_(march_fields * static_cast<std::size_t>(rays_)),
      shade_state_(shade_fields * static_cast<std::size_t>(rays_)),
      accumulated_(accumulated_fields * static_cast<std::size_t>(rays_)),
      counters_(4 * counter_words),
      remaining_(2) {
  begin_blocks_ = persistent_blocks(march_rays<true, block_threads>, block_threads, rays_);
  march_blocks_ = persistent_blocks(march_rays<false, block_threads>, block_threads, rays_);
  shade_blocks_ = persistent_blocks(shade_rays<block_threads>, block_threads, rays_);
}

void raycast_split_wavefront::queue_round(const raycast_program& program, std::uint32_t* counts,
                                          int round, cudaStream_t stream) {
  const auto n = static_cast<std::uint32_t>(rays_);
  const ray_queue marching{march_state_.data(), static_cast<std::size_t>(rays_)};
  const ray_queue shading{shade_state_.data(), static_cast<std::size_t>(rays_)};
  const accumulators acc{accumulated_.data(), static_cast<std::size_t>(rays_)};
  std::uint32_t* c = counters_.data();
  const int now = round & 1;
  const int next = now ^ 1;
  // March: round r's march queue in, round r's shade queue out; round r + 1's march counters
  // zeroed (the shade kernel appends to them).
  const kernel_queues march{marching, shading, c + (march_slot + now) * counter_words,
                            c + (shade_slot + now) * counter_words,
                            c + (march_slot + next) * counter_words};
  if (round == 0) {
    march_rays<true, block_threads>
        <<<begin_blocks_, block_threads, 0, stream>>>(program, march, acc, counts, n);
  } else {
    march_rays<false, block_threads>
        <<<march_blocks_, block_threads, 0, stream>>>(program, march, acc, counts, n);
  }
  MICROSCHED_CHECK_LAUNCH("march_rays");
  // Shade: into the march queue the march kernel has consumed; round r + 1's shade counters
  // zeroed (the next march appends to them).
  const kernel_queues shade{shading, marching, c + (shade_slot + now) * counter_words,
                            c + (march_slot + next) * counter_words,
                            c + (shade_slot + next) * counter_words};
  shade_rays<block_threads>
      <<<shade_blocks_, block_threads, 0, stream>>>(program, shade, acc, counts);
  MICROSCHED_CHECK_LAUNCH("shade_rays");
}

void raycast_split_wavefront::run(const raycast_program& program, std::uint32_t* counts,
                                  cudaStream_t stream) {
  // A run needs the most crossings one ray shades plus one rounds: unknown before the run and
  // far below any bound (the opacity's allows 47 shades), so the host reads the rays left once
  // per batch of rounds, one batch behind, rather than queueing the bound's empty rounds.
  // Every round takes at least one sample of every ray it keeps; a ray has at most
  // 2 * domain_radius / step samples.
  const float step = program.view.step_size;
  if (!(step >= 1e-3f)) throw_invalid("step", step, "must be at least 0.001");
  const double most_samples = std::ceil(2.0 * kernels::raycast::domain_radius / step);
  const int most_rounds = static_cast<int>(most_samples) + 2;  // at most 40002
  MICROSCHED_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream));
  int round = 0;
  for (int batch = 0;; ++batch) {
    for (int k = 0; k < batch_rounds; ++k, ++round) queue_round(program, counts, round, stream);
    // The rays the last shade kernel appended to round `round`'s march queue: those left.
    const std::uint32_t* left = counters_.data() + (march_slot + (round & 1)) * counter_words;
    MICROSCHED_CUDA_TRY(cudaMemcpyAsync(remaining_.data() + (batch & 1), left,
                                        sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
    MICROSCHED_CUDA_TRY(cudaEventRecord(batch_done_[batch & 1].get(), stream));
    if (batch == 0) continue;
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(batch_done_[(batch - 1) & 1].get()));
    const std::uint32_t remaining = remaining_.data()[(batch - 1) & 1];
    if (remaining == 0) {
      rounds_ = round;
      return;
    }
    const int checked = round - batch_rounds;  // the rounds behind that count
    if (checked > most_rounds) {
      throw std::runtime_error("raycast split wavefront: " + std::to_string(remaining) +
                               " rays still march after " + std::to_string(checked) +
                               " rounds, more rounds than a ray has samples: a ray never ends");
    }
  }
}

}  // namespace microsched::switching_workloads::detail
