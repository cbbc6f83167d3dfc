// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// unwrap-like polar resampling: out[t] = tone(img[P[t]]) with a fixed polar map P. Data
// reordering by duplication on the host (img'[t] = img[P[t]]), so the kernel reads img'[t]
// coalesced and only the referenced samples (1 MB) cross PCIe instead of the frame (16 MB).
// P is the same for every frame, so the analysis is done once (zhang2011 §5.2, "the suitable
// data order does not vary"): a gather plan, per block of samples, sorted by pixel address, so
// the per-frame copy walks each frame forward, page by page, instead of around the circles.
// Fallback past the memory cap: block-local job swapping (zhang2011 §4.1), computed once because
// P is fixed: each block of 256 jobs (8 radii x 32 angles) is regrouped so a warp's img
// references fall in few 32-byte segments; the kernel exchanges jobs through shared memory, reads
// no copy of the frame, and the pipeline adds one byte per sample on the device.
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>

#include "equal_cost_pieces.hpp"
#include "microsched/error.hpp"
#include "microsched/measure/event_timer.hpp"
#include "microsched/measure/host_timer.hpp"
#include "microsched/pipeline/cuda_memory.hpp"
#include "microsched/pipeline/job_swap.hpp"
#include "microsched/pipeline/reorder.hpp"
#include "microsched/pipeline/worker_pool.hpp"
#include "pipeline_workloads.hpp"
#include "workload_outputs.hpp"

namespace microsched::pipeline::workloads {
namespace {

//! The per-element code, shared by both kernels.
__device__ __forceinline__ float tone(std::uint8_t v) {
  return sqrtf(static_cast<float>(v) * (1.0f / 255.0f));
}

__global__ void unwrap_original(const std::uint8_t* img, const std::uint32_t* map, float* out,
                                std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = tone(img[map[t]]);
}

//! img'[t] for every sample, four per thread (the reordered copy is contiguous: one 4-byte load
//! and one 16-byte store per thread). n is a multiple of 4.
__global__ void unwrap_reordered_full(const uchar4* reordered, float4* out, std::uint32_t n4) {
  const std::uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n4) return;
  const uchar4 v = reordered[q];
  out[q] = make_float4(tone(v.x), tone(v.y), tone(v.z), tone(v.w));
}

//! img'[t] for the first m samples, the original gather for the rest.
__global__ void unwrap_reordered(const std::uint8_t* reordered, std::uint32_t m,
                                 const std::uint8_t* img, const std::uint32_t* map, float* out,
                                 std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  out[t] = tone(t < m ? reordered[t] : img[map[t]]);
}

constexpr int block = 256;
//! Samples per sorted block of the gather plan: a piece's
//! plan is cut from the blocks it overlaps and merged, without sorting the piece.
constexpr std::size_t plan_block = 65536;

// Job swapping tiles: one block of threads per tile of swap_radii x swap_angles jobs.
constexpr std::uint32_t swap_radii = 8;
constexpr std::uint32_t swap_angles = 32;
constexpr std::uint32_t swap_jobs = swap_radii * swap_angles;
static_assert(swap_jobs == block, "a job-swapping tile is one block of threads");
static_assert(swap_jobs <= 256, "a tile's swap index must fit one byte");

//! Job swapping inside each tile (zhang2011 §4.1, reference redirection): thread i of the block
//! does the tile's job swap[i] (slot s = (radius r0 + s / 32, angle a0 + s % 32)). The map and
//! the outputs go through shared memory so both stay coalesced; only img[P[job]] is swapped.
__global__ void __launch_bounds__(swap_jobs)
    unwrap_swapped(const std::uint8_t* img, const std::uint32_t* map, const std::uint8_t* swap,
                   float* out, std::uint32_t radii, std::uint32_t angles, std::uint32_t tiles_a) {
  __shared__ std::uint32_t ref[swap_jobs];  // (slot) P of the tile's jobs
  __shared__ float value[swap_jobs];        // (slot) results, written by the swapped thread
  const std::uint32_t tile = blockIdx.x;
  const std::uint32_t r0 = tile / tiles_a * swap_radii, a0 = tile % tiles_a * swap_angles;
  const std::uint32_t i = threadIdx.x;
  const std::uint32_t r = r0 + i / swap_angles, a = a0 + i % swap_angles;
  const bool mine = r < radii && a < angles;
  const std::size_t job = static_cast<std::size_t>(r) * angles + a;
  if (mine) ref[i] = map[job];
  __syncthreads();
  const std::uint32_t s = swap[static_cast<std::size_t>(tile) * swap_jobs + i];
  if (r0 + s / swap_angles < radii && a0 + s % swap_angles < angles) value[s] = tone(img[ref[s]]);
  __syncthreads();
  if (mine) out[job] = value[i];
}

struct polar {
  std::vector<std::uint32_t> map;
  std::vector<double> warp_transactions_prefix;  // sectors of img[P[t]] per warp, prefix sums
};

polar make_polar(const unwrap_options& o) {
  polar p;
  const std::size_t n = static_cast<std::size_t>(o.radii) * static_cast<std::size_t>(o.angles);
  p.map.resize(n);
  const double cx = o.width / 2.0, cy = o.height / 2.0;
  const double rmax = std::min(o.width, o.height) / 2.0 - 1;
  for (int r = 0; r < o.radii; ++r)
    for (int a = 0; a < o.angles; ++a) {
      const double rr = rmax * (r + 0.5) / o.radii;
      const double th = 2 * M_PI * a / o.angles;
      const int x = std::clamp(static_cast<int>(cx + rr * std::cos(th)), 0, o.width - 1);
      const int y = std::clamp(static_cast<int>(cy + rr * std::sin(th)), 0, o.height - 1);
      p.map[static_cast<std::size_t>(r) * static_cast<std::size_t>(o.angles) +
            static_cast<std::size_t>(a)] =
          static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(o.width) +
          static_cast<std::uint32_t>(x);
    }
  const std::size_t warps = (n + 31) / 32;
  p.warp_transactions_prefix.assign(warps + 1, 0);
  std::vector<index_t> seg;
  for (std::size_t w = 0; w < warps; ++w) {
    seg.clear();
    for (std::size_t t = w * 32; t < std::min(n, w * 32 + 32); ++t) seg.push_back(p.map[t] / 32);
    std::sort(seg.begin(), seg.end());
    const auto distinct = std::unique(seg.begin(), seg.end()) - seg.begin();
    p.warp_transactions_prefix[w + 1] =
        p.warp_transactions_prefix[w] + static_cast<double>(distinct);
  }
  return p;
}

class unwrap_program final : public program_base {
 public:
  explicit unwrap_program(const unwrap_options& o) : o_(o), polar_(make_polar(o)) {
    if (o.frames < 1) throw_invalid("frames", o.frames, "must be >= 1");
    if (o.chunks == 0) throw_invalid("chunks", o.chunks, "must be >= 1");
    if (o.plan_cache < 0 || o.plan_cache > 64)
      throw_invalid("plan_cache", o.plan_cache, "must be in 0..64");
    n_ = polar_.map.size();
    pixels_ = static_cast<std::size_t>(o.width) * static_cast<std::size_t>(o.height);
    frames_ = pinned_buffer<std::uint8_t>(pixels_ * static_cast<std::size_t>(o.frames));
    std::mt19937 rng(o.seed);
    for (std::size_t i = 0; i < frames_.size(); ++i)
      frames_.data()[i] = static_cast<std::uint8_t>(rng());
    d_img_ = device_buffer<std::uint8_t>(pixels_);
    d_map_ = device_buffer<std::uint32_t>(n_);
    MICROSCHED_CUDA_TRY(
        cudaMemcpy(d_map_.data(), polar_.map.data(), n_ * 4, cudaMemcpyHostToDevice));
    d_out_ = device_buffer<float>(o.chunks * n_);
    // The gather plan: within each block of samples, the samples in increasing pixel address.
    plan_t_.resize(n_);
    plan_src_.resize(n_);
    for (std::size_t b = 0; b < n_; b += plan_block) {
      const std::size_t e = std::min(n_, b + plan_block);
      for (std::size_t t = b; t < e; ++t) plan_t_[t] = static_cast<std::uint32_t>(t);
      std::stable_sort(
          plan_t_.begin() + static_cast<std::ptrdiff_t>(b),
          plan_t_.begin() + static_cast<std::ptrdiff_t>(e),
          [&](std::uint32_t x, std::uint32_t y) { return polar_.map[x] < polar_.map[y]; });
      for (std::size_t k = b; k < e; ++k) plan_src_[k] = polar_.map[plan_t_[k]];
    }
    if (o.weighted_pieces) cutter_.emplace(polar_.map, pixels_);
    cudaFuncAttributes attr{};
    MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, unwrap_reordered_full));
    MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, unwrap_original));
    MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, unwrap_reordered));
    MICROSCHED_CUDA_TRY(cudaFuncGetAttributes(&attr, unwrap_swapped));
  }
  std::size_t chunk_count() const override { return o_.chunks; }
  std::size_t chunk_elements(std::size_t) const override { return n_; }
  //! All or nothing: a partial reordered copy still needs the whole frame on the device.
  //! Data reordering first; past the memory cap job swapping (zhang2011 §5.4), which keeps one
  //! byte per sample on the device (the tile-local swap) and a small host buffer to build it.
  //! Reordering also states its one-off host bytes: the cache of per-piece gather plans it
  //! builds while transforming (plan_bytes_per_sample per cached sample). The block plan (8 B per
  //! sample) is built with the workload, whatever the method, and is not the pipeline's.
  std::vector<remap_method> methods() const override {
    return {{"reorder-duplication", n_, n_, /*partial=*/false,
             plan_cache_samples() * plan_bytes_per_sample(), 0},
            {"job-swapping", 0, 0, /*partial=*/false, swap_batch_tiles() * swap_jobs,
             tiles() * swap_jobs}};
  }
  std::size_t tiles_a() const {
    return (static_cast<std::size_t>(o_.angles) + swap_angles - 1) / swap_angles;
  }
  std::size_t tiles() const {
    return (static_cast<std::size_t>(o_.radii) + swap_radii - 1) / swap_radii * tiles_a();
  }
  std::size_t swap_batch_tiles() const { return std::min<std::size_t>(tiles(), 64); }
  void prepare(int method, int slots) override {
    if (method == job_swapping) {
      staging_.clear();  // only what the chosen method needs stays allocated
      d_reordered_.clear();
      prepare_job_swap();
      return;
    }
    d_swap_ = device_buffer<std::uint8_t>();
    if (static_cast<int>(staging_.size()) == slots) return;  // staging kept across runs
    staging_.clear();
    d_reordered_.clear();
    for (int s = 0; s < slots; ++s) {
      staging_.emplace_back(n_);
      d_reordered_.emplace_back(n_);
    }
  }
  const std::uint8_t* frame(std::size_t chunk) const {
    return frames_.data() + (chunk % static_cast<std::size_t>(o_.frames)) * pixels_;
  }
  //! The swap of every tile, built once (P is the same for every frame) through a host buffer of
  //! swap_batch_tiles() tiles, with the memory transactions per warp after the swap.
  void prepare_job_swap() {
    if (d_swap_.size() == tiles() * swap_jobs) return;  // kept across runs
    d_swap_ = device_buffer<std::uint8_t>(tiles() * swap_jobs);
    swap_after_prefix_.assign(tiles() + 1, 0);
    std::vector<std::uint8_t> batch(swap_batch_tiles() * swap_jobs);
    std::vector<index_t> refs;
    std::vector<std::uint8_t> slots;
    std::vector<index_t> seg;
    const auto radii = static_cast<std::size_t>(o_.radii),
               angles = static_cast<std::size_t>(o_.angles);
    for (std::size_t t0 = 0; t0 < tiles(); t0 += swap_batch_tiles()) {
      const std::size_t t1 = std::min(tiles(), t0 + swap_batch_tiles());
      for (std::size_t tile = t0; tile < t1; ++tile) {
        const std::size_t r0 = tile / tiles_a() * swap_radii, a0 = tile % tiles_a() * swap_angles;
        refs.clear();
        slots.clear();
        std::vector<std::uint8_t> idle;
        for (std::uint32_t i = 0; i < swap_jobs; ++i) {
          const std::size_t r = r0 + i / swap_angles, a = a0 + i % swap_angles;
          if (r < radii && a < angles) {
            refs.push_back(polar_.map[r * angles + a]);
            slots.push_back(static_cast<std::uint8_t>(i));
          } else {
            idle.push_back(static_cast<std::uint8_t>(i));
          }
        }
        const std::vector<index_t> q = job_swap(refs, {.element_bytes = 1, .segment_bytes = 32});
        std::uint8_t* out = batch.data() + (tile - t0) * swap_jobs;
        std::size_t k = 0;
        double sectors = 0;
        for (std::size_t w = 0; w < q.size(); w += 32) {
          seg.clear();
          for (std::size_t j = w; j < std::min(q.size(), w + 32); ++j)
            seg.push_back(refs[q[j]] / 32);
          std::sort(seg.begin(), seg.end());
          sectors += static_cast<double>(std::unique(seg.begin(), seg.end()) - seg.begin());
        }
        for (const index_t j : q) out[k++] = slots[j];
        for (const std::uint8_t i : idle) out[k++] = i;
        swap_after_prefix_[tile + 1] = swap_after_prefix_[tile] + sectors;
      }
      MICROSCHED_CUDA_TRY(cudaMemcpy(d_swap_.data() + t0 * swap_jobs, batch.data(),
                                     (t1 - t0) * swap_jobs, cudaMemcpyHostToDevice));
    }
  }
  transform_outcome transform(const transform_job& job) override {
    const std::size_t w0 = job.begin / 32, w1 = (job.end + 31) / 32;
    const double before = polar_.warp_transactions_prefix[w1] - polar_.warp_transactions_prefix[w0];
    if (job.method == job_swapping) {
      // Nothing per frame: the swap was built once. The measure: sectors of img[P] per warp,
      // original warps of this piece against swapped warps of its share of the tiles.
      const std::size_t k0 = job.begin * tiles() / n_, k1 = job.end * tiles() / n_;
      return {before, swap_after_prefix_[k1] - swap_after_prefix_[k0]};
    }
    // img'[t] = img[P[t]] for t in [begin, end).
    const std::uint8_t* img = frame(job.chunk);
    std::uint8_t* out = staging_[static_cast<std::size_t>(job.slot)].data();
    std::shared_ptr<const piece_plan> plan = cached_plan(job.begin, job.end);
    if (!plan) {  // first use: cut it from the block plan (a linear pass)
      build_plan(job.begin, job.end);
      plan =
          cached_plan(job.begin, job.end);  // null past the cache budget or while another builds it
    }
    // One forward sweep of the frame per run of the plan (its output, 64 KB at most, stays in the
    // core's L2); without a plan, one sweep per block of the block plan the piece overlaps.
    const bool done = plan ? gather_compact(*plan, img, out, job) : gather_blocks(img, out, job);
    if (!done) return {};  // launched without it: stopped early
    return {before, static_cast<double>(w1 - w0)};
  }
  //! out[t] = img[P[t]] for t in the job's range along the block plan of each block it overlaps
  //! (samples of other pieces skipped); false when cancelled.
  bool gather_blocks(const std::uint8_t* img, std::uint8_t* out, const transform_job& job) const {
    const std::size_t count = job.end - job.begin;
    for (std::size_t b = job.begin / plan_block * plan_block; b < job.end; b += plan_block) {
      if (job.cancelled()) return false;
      const std::size_t e = std::min(n_, b + plan_block);
      const bool whole = b >= job.begin && e <= job.end;
      for (std::size_t k = b; k < e; ++k) {
        if (k + prefetch_ahead < e) __builtin_prefetch(img + plan_src_[k + prefetch_ahead]);
        const std::uint32_t t = plan_t_[k];
        if (whole || t - job.begin < count) out[t] = img[plan_src_[k]];
      }
    }
    return true;
  }
  //! The gather plan of one piece [begin, end): its samples in increasing pixel address, so a
  //! helper sweeps the frame once per piece. Built on a piece's first use (pieces are the same
  //! for every chunk of a run: the driver cuts them from threads_per_chunk and granularity) and
  //! kept; null once the cache would exceed plan_cache_samples samples (plan_bytes_per_sample
  //! each). One uint32 per sample, address step << 17 | sample offset, in runs within one window
  //! of 131072 samples from the piece's start (offsets fit 17 bits), so a piece of up to 131072
  //! samples sweeps the frame once; a run restarts where an address step would not fit 15 bits.
  //! One sweep per piece reads fewer frame lines than one per 65536-sample block (238 K against
  //! 270 K per frame with 15 pieces, 198 K distinct lines in the frame), and 4 B per sample is
  //! half the plan traffic of an (index, address) pair: the gather is a bandwidth-bound sweep.
  static constexpr unsigned offset_bits = 17;  //!< sample offset bits
  static constexpr std::uint32_t offset_mask = (1u << offset_bits) - 1;
  static constexpr std::uint32_t max_step = (1u << (32 - offset_bits)) - 1;
  static constexpr std::size_t window = std::size_t{1} << offset_bits;
  //! Samples ahead whose frame line a gather prefetches.
  static constexpr std::size_t prefetch_ahead = 32;
  struct plan_run {
    std::size_t t0 = 0;     // sample offsets are from t0
    std::size_t first = 0;  // index into code
    std::size_t count = 0;
    std::uint32_t src0 = 0;  // pixel address of the run's first sample (its step is 0)
  };
  struct piece_plan {
    std::vector<plan_run> runs;
    std::vector<std::uint32_t> code;  // address step << 17 | (sample index - t0)
  };
  //! out[t] = img[P[t]] along a piece's plan; false when cancelled.
  static bool gather_compact(const piece_plan& plan, const std::uint8_t* img, std::uint8_t* out,
                             const transform_job& job) {
    constexpr std::size_t poll = 16384, ahead = prefetch_ahead;
    std::size_t since_poll = 0;
    for (const plan_run& run : plan.runs) {
      const std::uint32_t* c = plan.code.data() + run.first;
      std::uint8_t* o = out + run.t0;
      const std::uint8_t* s = img + run.src0;
      const std::uint8_t* pf = s;  // the address `ahead` samples further on, prefetched
      const std::size_t lead = std::min(ahead, run.count);
      for (std::size_t j = 0; j < lead; ++j) pf += c[j] >> offset_bits;
      std::size_t k = 0;
      while (k < run.count) {
        if (since_poll >= poll) {
          if (job.cancelled()) return false;
          since_poll = 0;
        }
        const std::size_t stop = std::min(run.count, k + poll - since_poll);
        const std::size_t fast = std::min(stop, run.count > ahead ? run.count - ahead : 0);
        since_poll += stop - k;
        for (; k < fast; ++k) {
          pf += c[k + ahead] >> offset_bits;
          __builtin_prefetch(pf);
          const std::uint32_t v = c[k];
          s += v >> offset_bits;
          o[v & offset_mask] = *s;
        }
        for (; k < stop; ++k) {
          const std::uint32_t v = c[k];
          s += v >> offset_bits;
          o[v & offset_mask] = *s;
        }
      }
    }
    return !job.cancelled();
  }
  //! The cached plan of [begin, end), or null. Plans are built on a piece's first use, before its
  //! gather (a linear pass over the blocks it overlaps, ~0.1-0.3 ms).
  std::shared_ptr<const piece_plan> cached_plan(std::size_t begin, std::size_t end) const {
    const std::lock_guard lock(plan_mutex_);
    const auto it = plan_cache_.find(std::make_pair(begin, end));
    return it == plan_cache_.end() ? nullptr : it->second;
  }
  void build_plan(std::size_t begin, std::size_t end) const {
    {
      // Reserved under the lock with an empty entry (cached_plan() reads it as no plan yet), so a
      // second helper reaching the same piece meanwhile neither builds it too nor counts it twice.
      const std::lock_guard lock(plan_mutex_);
      if (plan_cache_size_ + (end - begin) > plan_cache_samples()) return;
      if (!plan_cache_.try_emplace(std::make_pair(begin, end), nullptr).second) return;
      plan_cache_size_ += end - begin;
    }
    auto plan = std::make_shared<piece_plan>();
    // The block plan lists each block's samples in increasing pixel address: a window's samples
    // are those lists filtered to the window and merged (two or three blocks), offsets from the
    // window's start.
    plan->code.reserve(end - begin);
    std::vector<std::uint64_t> keyed;  // (pixel address, sample index), increasing
    for (std::size_t w0 = begin, w1 = begin; w0 < end; w0 = w1) {
      w1 = std::min(end, w0 + window);
      keyed.clear();
      for (std::size_t b = w0 / plan_block * plan_block; b < w1; b += plan_block) {
        const std::size_t middle = keyed.size();
        for (std::size_t k = b; k < std::min(n_, b + plan_block); ++k)
          if (plan_t_[k] >= w0 && plan_t_[k] < w1)
            keyed.push_back(std::uint64_t{plan_src_[k]} << 32 | plan_t_[k]);
        std::inplace_merge(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(middle),
                           keyed.end());
      }
      std::uint32_t previous = 0;
      for (std::size_t k = 0; k < keyed.size(); ++k) {
        const auto src = static_cast<std::uint32_t>(keyed[k] >> 32);
        const auto t = static_cast<std::uint32_t>(keyed[k]);
        if (k == 0 || src - previous > max_step) {  // a new run: absolute address
          plan->runs.push_back({w0, plan->code.size(), 0, src});
          previous = src;
        }
        plan->code.push_back((src - previous) << offset_bits | static_cast<std::uint32_t>(t - w0));
        ++plan->runs.back().count;
        previous = src;
      }
    }
    // Steps too far apart for the memory budgeted per sample: no plan (the entry stays reserved,
    // the piece follows the block plan).
    if (plan->runs.size() * sizeof(plan_run) > end - begin) return;
    const std::lock_guard lock(plan_mutex_);
    plan_cache_[std::make_pair(begin, end)] = std::move(plan);
  }
  std::size_t plan_cache_samples() const { return static_cast<std::size_t>(o_.plan_cache) * n_; }
  //! Pieces of equal gather cost (equal_cost_pieces.hpp), once per (pieces, granularity).
  std::vector<std::size_t> piece_bounds(std::size_t, std::size_t m, int pieces,
                                        std::size_t g) override {
    if (m != n_ || pieces < 2 || g == 0 || !cutter_) return {};
    const auto key = std::make_pair(pieces, g);
    if (const auto it = bounds_cache_.find(key); it != bounds_cache_.end()) return it->second;
    std::vector<std::size_t> bounds = cutter_->bounds(static_cast<std::size_t>(pieces), g);
    bounds_cache_.emplace(key, bounds);
    return bounds;
  }
  //! Host bytes per cached sample: 4, plus the runs (32 B each, at most one per 32 samples
  //! kept; counted as 1 byte per sample).
  static constexpr std::size_t plan_bytes_per_sample() { return 5; }
  void upload(const transform_job& job, stream_t s) override {
    if (job.method == job_swapping) return;  // the swap is on the device since prepare()
    const auto slot = static_cast<std::size_t>(job.slot);
    MICROSCHED_CUDA_TRY(cudaMemcpyAsync(d_reordered_[slot].data() + job.begin,
                                        staging_[slot].data() + job.begin, job.end - job.begin,
                                        cudaMemcpyHostToDevice, s));
  }
  unsigned grid() const { return static_cast<unsigned>((n_ + block - 1) / block); }
  void launch_original(std::size_t chunk, stream_t s) override {
    MICROSCHED_CUDA_TRY(
        cudaMemcpyAsync(d_img_.data(), frame(chunk), pixels_, cudaMemcpyHostToDevice, s));
    unwrap_original<<<grid(), block, 0, s>>>(
        d_img_.data(), d_map_.data(), d_out_.data() + chunk * n_, static_cast<std::uint32_t>(n_));
    MICROSCHED_CHECK_LAUNCH("unwrap_original");
  }
  void launch_optimised(const transform_job& job, stream_t s) override {
    if (job.method == job_swapping) {
      MICROSCHED_CUDA_TRY(
          cudaMemcpyAsync(d_img_.data(), frame(job.chunk), pixels_, cudaMemcpyHostToDevice, s));
      unwrap_swapped<<<static_cast<unsigned>(tiles()), swap_jobs, 0, s>>>(
          d_img_.data(), d_map_.data(), d_swap_.data(), d_out_.data() + job.chunk * n_,
          static_cast<std::uint32_t>(o_.radii), static_cast<std::uint32_t>(o_.angles),
          static_cast<std::uint32_t>(tiles_a()));
      MICROSCHED_CHECK_LAUNCH("unwrap_swapped");
      return;
    }
    if (job.transformed == n_ && n_ % 4 == 0) {
      launch_full(d_reordered_[static_cast<std::size_t>(job.slot)].data(),
                  d_out_.data() + job.chunk * n_, s);
      return;
    }
    if (job.transformed < n_)  // the rest still gathers from the whole frame
      MICROSCHED_CUDA_TRY(
          cudaMemcpyAsync(d_img_.data(), frame(job.chunk), pixels_, cudaMemcpyHostToDevice, s));
    unwrap_reordered<<<grid(), block, 0, s>>>(
        d_reordered_[static_cast<std::size_t>(job.slot)].data(),
        static_cast<std::uint32_t>(job.transformed), d_img_.data(), d_map_.data(),
        d_out_.data() + job.chunk * n_, static_cast<std::uint32_t>(n_));
    MICROSCHED_CHECK_LAUNCH("unwrap_reordered");
  }
  void launch_full(const std::uint8_t* reordered, float* out, stream_t s) {
    const auto n4 = static_cast<std::uint32_t>(n_ / 4);
    unwrap_reordered_full<<<(n4 + block - 1) / block, block, 0, s>>>(
        reinterpret_cast<const uchar4*>(reordered), reinterpret_cast<float4*>(out), n4);
    MICROSCHED_CHECK_LAUNCH("unwrap_reordered_full");
  }
  void poison_outputs() override { poison_and_wait(d_out_); }
  std::vector<std::uint32_t> outputs() override { return output_words(d_out_); }
  std::string describe() const override {
    std::ostringstream s;
    s << "unwrap chunks=" << o_.chunks << " image=" << o_.width << "x" << o_.height
      << " polar=" << o_.radii << "x" << o_.angles << " frames=" << o_.frames;
    return s.str();
  }

  //! Kernel-only timing on frame 0: the original gather against a fully reordered frame.
  kernel_pair time_kernels(const timing_options& t) {
    prepare(0, 1);
    reorder<std::uint8_t>(std::span<const std::uint8_t>(frame(0), pixels_), polar_.map,
                          staging_[0].span(), 0, n_);
    MICROSCHED_CUDA_TRY(
        cudaMemcpy(d_reordered_[0].data(), staging_[0].data(), n_, cudaMemcpyHostToDevice));
    MICROSCHED_CUDA_TRY(cudaMemcpy(d_img_.data(), frame(0), pixels_, cudaMemcpyHostToDevice));
    // Each sample times `batch` back-to-back launches (a single 10 µs kernel between two events
    // measures mostly the launch); reported per launch.
    constexpr int batch = 10;
    event_timer timer;
    kernel_pair k;
    k.original = timer.time(
        [&](cudaStream_t s) {
          for (int b = 0; b < batch; ++b) {
            unwrap_original<<<grid(), block, 0, s>>>(d_img_.data(), d_map_.data(), d_out_.data(),
                                                     static_cast<std::uint32_t>(n_));
            MICROSCHED_CHECK_LAUNCH("unwrap_original");
          }
        },
        t);
    k.optimised = timer.time(
        [&](cudaStream_t s) {
          for (int b = 0; b < batch; ++b) launch_full(d_reordered_[0].data(), d_out_.data(), s);
        },
        t);
    for (timing_stats* x : {&k.original, &k.optimised}) {
      x->median_ms /= batch;
      x->min_ms /= batch;
      x->max_ms /= batch;
    }
    return k;
  }

 private:
  unwrap_options o_;
  polar polar_;
  std::size_t n_ = 0;
  std::size_t pixels_ = 0;
  pinned_buffer<std::uint8_t> frames_;
  device_buffer<std::uint8_t> d_img_;
  device_buffer<std::uint32_t> d_map_;
  device_buffer<float> d_out_;
  std::vector<std::uint32_t> plan_t_;    // sample index, per block in increasing pixel address
  std::vector<std::uint32_t> plan_src_;  // its pixel address
  mutable std::mutex plan_mutex_;  //!< guards the piece plans (helpers call transform at once)
  mutable std::map<std::pair<std::size_t, std::size_t>, std::shared_ptr<const piece_plan>>
      plan_cache_;
  mutable std::size_t plan_cache_size_ = 0;
  std::optional<equal_cost_pieces> cutter_;  //!< null without weighted pieces
  std::map<std::pair<int, std::size_t>, std::vector<std::size_t>>
      bounds_cache_;  //!< main thread only
  std::vector<pinned_buffer<std::uint8_t>> staging_;
  std::vector<device_buffer<std::uint8_t>> d_reordered_;
  static constexpr int job_swapping = 1;  //!< index of "job-swapping" in methods()
  device_buffer<std::uint8_t> d_swap_;    //!< (tile, thread) slot of the job the thread does
  std::vector<double>
      swap_after_prefix_;  //!< sectors of img[P] per tile after the swap, prefix sums
};

}  // namespace

std::unique_ptr<program_base> make_unwrap(const unwrap_options& options) {
  return std::make_unique<unwrap_program>(options);
}

kernel_pair time_unwrap_kernels(const unwrap_options& options, const timing_options& t) {
  unwrap_program p(options);
  return p.time_kernels(t);
}

std::vector<double> time_unwrap_gather(const unwrap_options& options, int threads, int frames) {
  unwrap_program p(options);
  p.prepare(0, 1);
  worker_pool pool(threads);
  const std::size_t n = p.chunk_elements(0);
  constexpr std::size_t g = 4096;  // the bench's granularity
  const auto pieces = static_cast<std::size_t>(threads);
  std::vector<std::size_t> bounds = p.piece_bounds(0, n, threads, g);
  if (!valid_piece_bounds(bounds, n, threads, g)) bounds = equal_piece_bounds(n, threads, g);
  const int warm = 2 * options.frames;  // the first sweep of each piece builds its plan
  int next_frame = 0;
  return host_samples(
      [&] {
        const int f = next_frame++;
        for (std::size_t k = 0; k < pieces; ++k)
          pool.submit([&, k, f] {
            transform_job job{static_cast<std::size_t>(f), 0, 0, bounds[k], bounds[k + 1], n, n};
            (void)p.transform(job);
          });
        pool.wait_idle();
      },
      {.warmup = warm, .repetitions = frames});
}

}  // namespace microsched::pipeline::workloads
