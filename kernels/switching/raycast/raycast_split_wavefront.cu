// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The split march/shade wavefront of the ray caster (raycast_split_wavefront.cuh): the queues'
// device side (warp-aggregated takes and appends, the round's end), the kernels, and the runs;
// the graph is built in raycast_split_wavefront_graph.cu.
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
constexpr int counter_words = 2;       // per queue generation (split_words)
namespace word = split_words;

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

//! The counters of the round the words say: march and shade queues of this round and the next.
struct round_counters {
  std::uint32_t* march_now;
  std::uint32_t* march_next;
  std::uint32_t* shade_now;
  std::uint32_t* shade_next;
};

__device__ __forceinline__ round_counters this_round(std::uint32_t* words) {
  const std::uint32_t now = words[word::round] & 1u;
  const std::uint32_t next = now ^ 1u;
  return {words + word::march + now * counter_words, words + word::march + next * counter_words,
          words + word::shade + now * counter_words, words + word::shade + next * counter_words};
}

//! Zeroes the counters of the queue the next kernel appends to (nobody reads them meanwhile).
__device__ __forceinline__ void reset_next(std::uint32_t* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    counter[0] = 0;
    counter[1] = 0;
  }
}

//! March only: each ray to its next crossing (appended to the shade queue) or its end. First:
//! the rays begin here, ray t at entry t; no shading code, so fewer registers than vanilla's.
template <bool First, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads) march_rays(const split_params p) {
  const round_counters c = this_round(p.words);
  reset_next(c.march_next);  // the shade kernel appends to it
  const std::uint32_t length = First ? p.rays : c.march_now[0];
  if (length == 0) return;
  const ray_queue in{p.march_state, p.rays};
  const ray_queue out{p.shade_state, p.rays};
  const accumulators acc{p.accumulated, p.rays};
  const auto& view = p.program.view;
  for (std::uint32_t first = take_entries(c.march_now + 1); first < length;
       first = take_entries(c.march_now + 1)) {
    const std::uint32_t i = first + (threadIdx.x & 31u);
    bool crossed = false;
    std::uint32_t t = i;
    ray_state r;
    if (i < length) {
      if constexpr (First) {
        r = p.program.begin(t);
      } else {
        t = in.at(task, i);
        r = load_ray(in, i, false);
      }
      // A ray in the march queue is not opaque: it ends here only at its last sample.
      do {
        crossed = kernels::raycast::march_window(r, view);
      } while (!crossed && r.n < r.n_end);
      if (!crossed) {
        if constexpr (!First) acc.load(r, t);
        end_ray(p.program, p.counts, t, r);
      } else if constexpr (First) {
        acc.store(r, t);  // nothing accumulated yet: the shade kernel reads these
      }
    }
    const std::uint32_t entry = append_entry(c.shade_now, crossed);
    if (crossed) store_ray(out, entry, t, r, true);
  }
}

//! The round's end, by the last block to finish (a ticket): the next round, the rays left and,
//! in the graph, the loop's condition; exactly one thread sets it, as the runtime requires.
__device__ __forceinline__ void end_round(const split_params& p, const round_counters& c) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  __threadfence();  // this block's appends before its ticket
  if (atomicAdd(p.words + word::ticket, 1u) != gridDim.x - 1) return;
  __threadfence();  // every block's appends before the count is read
  const std::uint32_t left = *static_cast<volatile std::uint32_t*>(c.march_next);
  const std::uint32_t round = p.words[word::round] + 1;
  p.words[word::round] = round;
  p.words[word::left] = left;
  p.words[word::ticket] = 0;
  if (p.sets_condition != 0) {
    cudaGraphSetConditional(p.condition, left > 0 && round < p.most_rounds ? 1u : 0u);
  }
}

//! Shades every ray of the shade queue; an ended ray writes its pixel, the others are appended
//! to the next round's march queue. Every block ends in end_round.
template <int BlockThreads>
__global__ void __launch_bounds__(BlockThreads) shade_rays(const split_params p) {
  const round_counters c = this_round(p.words);
  reset_next(c.shade_next);  // the next march kernel appends to it
  const std::uint32_t length = c.shade_now[0];
  const ray_queue in{p.shade_state, p.rays};
  const ray_queue out{p.march_state, p.rays};
  const accumulators acc{p.accumulated, p.rays};
  const auto& view = p.program.view;
  for (std::uint32_t first = length == 0 ? 0 : take_entries(c.shade_now + 1); first < length;
       first = take_entries(c.shade_now + 1)) {
    const std::uint32_t i = first + (threadIdx.x & 31u);
    bool marches = false;
    std::uint32_t t = 0;
    ray_state r;
    if (i < length) {
      t = in.at(task, i);
      r = load_ray(in, i, true);
      acc.load(r, t);
      kernels::raycast::shade(r, view);
      if (kernels::raycast::ray_done(r, view)) {
        end_ray(p.program, p.counts, t, r);
      } else {
        marches = true;
        acc.store(r, t);
      }
    }
    const std::uint32_t entry = append_entry(c.march_next, marches);
    if (marches) store_ray(out, entry, t, r, false);
  }
  end_round(p, c);
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
  // 32-bit queue entries; a warp's take may run 32 past the length per warp without wrapping.
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
      words_(word::count),
      status_(4) {
  kernels_.begin = reinterpret_cast<const void*>(march_rays<true, block_threads>);
  kernels_.march = reinterpret_cast<const void*>(march_rays<false, block_threads>);
  kernels_.shade = reinterpret_cast<const void*>(shade_rays<block_threads>);
  begin_blocks_ = persistent_blocks(march_rays<true, block_threads>, block_threads, rays_);
  march_blocks_ = persistent_blocks(march_rays<false, block_threads>, block_threads, rays_);
  shade_blocks_ = persistent_blocks(shade_rays<block_threads>, block_threads, rays_);
}

split_params raycast_split_wavefront::params(const raycast_program& program,
                                             std::uint32_t* counts) const {
  // Every round takes at least one sample of every ray it keeps; a ray has at most
  // 2 * domain_radius / step samples.
  const float step = program.view.step_size;
  if (!(step >= 1e-3f)) throw_invalid("step", step, "must be at least 0.001");
  const double most_samples = std::ceil(2.0 * kernels::raycast::domain_radius / step);
  split_params p{};
  p.program = program;
  p.march_state = march_state_.data();
  p.shade_state = shade_state_.data();
  p.accumulated = accumulated_.data();
  p.words = words_.data();
  p.counts = counts;
  p.rays = static_cast<std::uint32_t>(rays_);
  p.most_rounds = static_cast<std::uint32_t>(most_samples) + 2;  // at most 40002
  return p;
}

void raycast_split_wavefront::queue_round(const split_params& p, bool first, cudaStream_t stream) {
  if (first) {
    march_rays<true, block_threads><<<begin_blocks_, block_threads, 0, stream>>>(p);
  } else {
    march_rays<false, block_threads><<<march_blocks_, block_threads, 0, stream>>>(p);
  }
  MICROSCHED_CHECK_LAUNCH("march_rays");
  shade_rays<block_threads><<<shade_blocks_, block_threads, 0, stream>>>(p);
  MICROSCHED_CHECK_LAUNCH("shade_rays");
}

void raycast_split_wavefront::throw_runaway(std::uint32_t left, int rounds) {
  throw std::runtime_error("raycast split wavefront: " + std::to_string(left) +
                           " rays still march after " + std::to_string(rounds) +
                           " rounds, more rounds than a ray has samples: a ray never ends");
}

void raycast_split_wavefront::run_batched(const split_params& p, cudaStream_t stream) {
  // A run needs the most crossings one ray shades plus one rounds: unknown before the run and
  // far below the bound, so the host reads the rays left once per batch of rounds, one batch
  // behind, rather than queueing the bound's empty rounds.
  MICROSCHED_CUDA_TRY(cudaMemsetAsync(words_.data(), 0, words_.bytes(), stream));
  for (int batch = 0;; ++batch) {
    for (int k = 0; k < batch_rounds; ++k) queue_round(p, batch == 0 && k == 0, stream);
    std::uint32_t* status = status_.data() + 2 * (batch & 1);
    MICROSCHED_CUDA_TRY(cudaMemcpyAsync(status, words_.data() + word::round,
                                        2 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
    MICROSCHED_CUDA_TRY(cudaEventRecord(batch_done_[batch & 1].get(), stream));
    if (batch == 0) continue;
    MICROSCHED_CUDA_TRY(cudaEventSynchronize(batch_done_[(batch - 1) & 1].get()));
    const std::uint32_t* behind = status_.data() + 2 * ((batch - 1) & 1);
    rounds_ = static_cast<int>(behind[0]);
    if (behind[1] == 0) return;
    if (behind[0] > p.most_rounds) throw_runaway(behind[1], rounds_);
  }
}

}  // namespace microsched::switching_workloads::detail
