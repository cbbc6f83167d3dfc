// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Banded local alignment (Smith-Waterman, linear gaps) of short reads against a reference, the
// divergence of the bioinformatics kernels of the paper: each read extends row by row along its
// claimed position and stops early when it cannot score any more (x-drop) or looks unrelated,
// and only reads that align well pay for a verification pass over their bases.
#include <algorithm>
#include <cstring>
#include <random>

#include "microsched/device_buffer.hpp"
#include "model/launch_modes.cuh"

namespace microsched::model_kernels {

namespace {

using model::probe_mode;
constexpr int band = 7;  // diagonals each side of the claimed one
constexpr int width = 2 * band + 1;
constexpr int match = 2, mismatch = -3, gap = -4;
constexpr int x_drop = 16;         // stop once the row's best is this far below the best
constexpr int hopeless_rows = 24;  // after this many rows, stop unless best >= rows / 4
constexpr int min_length = 48, max_length = 160;

// Bases are 2 bits, 16 to a word: a read starts at a word boundary. A thread loads one word of
// its read and one of the reference per 16 rows and keeps the band's reference bases in
// registers, so the rows are arithmetic, not loads.
struct read_set {
  const std::uint32_t* words;  // all reads, packed
  const std::uint32_t* start;  // (read) -> first word
  const std::uint16_t* length;
  const std::uint32_t* ref_pos;
  const std::uint32_t* ref;  // the reference, packed
};

__device__ __forceinline__ int base_at(std::uint32_t word, std::uint32_t k) {
  return static_cast<int>((word >> (2 * (k & 15))) & 3u);
}

// regions: 0 dp row (per row of the read), 1 verify (per base of a read that aligned)
template <probe_mode Mode, bool Redirect>
__global__ void align_reads(read_set s, uint2* result, const std::uint32_t* order,
                            std::uint32_t threads, model::bbv_sink sink, unsigned* visits) {
  std::uint32_t read;
  if (!item_of<Redirect>(blockIdx.x * blockDim.x + threadIdx.x, order, threads, read)) return;
  if (visits != nullptr) atomicAdd(visits + read, 1u);
  model::bbv_probe<2, Mode> probe;
  const std::uint32_t* q = s.words + s.start[read];
  const int length = s.length[read];
  const std::uint32_t pos = s.ref_pos[read];  // >= band, pos + length + band <= reference
  int h[width], win[width];                   // (diagonal d) at row i: ref base pos + i + d - band
#pragma unroll
  for (int d = 0; d < width; ++d) {
    const std::uint32_t k = pos + d - band;
    h[d] = 0;
    win[d] = base_at(s.ref[k >> 4], k);
  }
  std::uint32_t k_next = pos + band + 1, ref_word = s.ref[k_next >> 4], q_word = 0;
  int best = 0, best_row = 0, rows = 0;
  for (int i = 0; i < length; ++i) {
    if ((i & 15) == 0) q_word = q[i >> 4];
    const int qi = base_at(q_word, static_cast<std::uint32_t>(i));
    int left = 0, row_best = 0;  // h of the cell to the left in this row
#pragma unroll
    for (int d = 0; d < width; ++d) {  // cell (i, j = i + d - band), diagonal d
      const int diag = h[d] + (qi == win[d] ? match : mismatch);
      const int up = d + 1 < width ? h[d + 1] + gap : 0;  // (i - 1, j) lies on diagonal d + 1
      const int v = max(max(0, diag), max(up, left + gap));
      h[d] = v;
      left = v;
      row_best = max(row_best, v);
    }
#pragma unroll
    for (int d = 0; d + 1 < width; ++d) win[d] = win[d + 1];  // slide the band one base
    if ((k_next & 15) == 0) ref_word = s.ref[k_next >> 4];
    win[width - 1] = base_at(ref_word, k_next++);
    ++rows;
    if (row_best > best) best = row_best, best_row = i;
    probe.template leave<0>();
    if (best - row_best > x_drop || (rows >= hopeless_rows && best < rows / 4)) break;
  }
  unsigned check = 0;
  if (best >= length) {  // aligned: verify base by base along the claimed diagonal
    for (int i = 0; i < length; ++i) {
      const std::uint32_t k = pos + static_cast<std::uint32_t>(i);
      const unsigned a = base_at(q[i >> 4], static_cast<std::uint32_t>(i)),
                     b = base_at(s.ref[k >> 4], k);
      check = (check ^ (a * 4u + b)) * 0x9e3779b1u;
      check ^= check >> 15;
      probe.template leave<1>();
    }
  }
  result[read] = make_uint2(static_cast<unsigned>(best) | (static_cast<unsigned>(rows) << 16),
                            check ^ static_cast<unsigned>(best_row));
  probe.flush(sink, read);
}

//! Packs bases (0..3) 16 to a word, starting a new word at the first base.
void pack(const std::uint8_t* bases, std::size_t count, std::vector<std::uint32_t>& out) {
  for (std::size_t i = 0; i < count; i += 16) {
    std::uint32_t word = 0;
    for (std::size_t k = i; k < std::min(count, i + 16); ++k)
      word |= std::uint32_t{bases[k]} << (2 * (k - i));
    out.push_back(word);
  }
}

class alignment final : public divergent_workload {
 public:
  explicit alignment(std::size_t reads) : reads_(reads) {
    if (reads == 0 || reads > (1u << 24)) throw_invalid("reads", reads, "must be in [1, 2^24]");
    std::mt19937 rng(7);
    const std::uint32_t ref_length = 1u << 20;
    std::vector<std::uint8_t> ref(ref_length);
    std::uniform_int_distribution<int> base(0, 3), len(min_length, max_length);
    for (auto& b : ref) b = static_cast<std::uint8_t>(base(rng));
    std::uniform_int_distribution<std::uint32_t> where(band, ref_length - max_length - band - 1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::uint8_t> bases;
    std::vector<std::uint32_t> start(reads), pos(reads), words;
    std::vector<std::uint16_t> length(reads);
    features_ = model::feature_matrix{reads, 3, {}};
    for (std::size_t r = 0; r < reads; ++r) {
      length[r] = static_cast<std::uint16_t>(len(rng));
      pos[r] = where(rng);
      start[r] = static_cast<std::uint32_t>(bases.size());
      // 60% of the reads come from the reference with 0-8% substitutions, and 1 in 4 of those
      // turns into unrelated bases part-way (a chimera); the rest are unrelated
      const bool mapped = u(rng) < 0.6;
      const double error = 0.08 * u(rng);
      const int chimera_at =
          mapped && u(rng) < 0.25 ? static_cast<int>(length[r] * u(rng)) : 1 << 30;
      for (int i = 0; i < length[r]; ++i) {
        const bool copy = mapped && i < chimera_at && u(rng) >= error;
        bases.push_back(copy ? ref[pos[r] + i] : static_cast<std::uint8_t>(base(rng)));
      }
      int prefix = 0;  // matches of the first 16 bases: what a seed lookup would see
      for (int i = 0; i < 16; ++i) prefix += bases[start[r] + i] == ref[pos[r] + i];
      const std::uint32_t first_base = start[r];
      start[r] = static_cast<std::uint32_t>(words.size());
      pack(bases.data() + first_base, length[r], words);
      features_.values.insert(features_.values.end(),
                              {double(length[r]), double(prefix), length[r] * prefix / 16.0});
    }
    std::vector<std::uint32_t> ref_words;
    pack(ref.data(), ref.size(), ref_words);
    words_ = device_buffer<std::uint32_t>(words);
    start_ = device_buffer<std::uint32_t>(start);
    length_ = device_buffer<std::uint16_t>(length);
    pos_ = device_buffer<std::uint32_t>(pos);
    ref_ = device_buffer<std::uint32_t>(ref_words);
    result_ = device_buffer<uint2>(reads);
    set_ = {words_.data(), start_.data(), length_.data(), pos_.data(), ref_.data()};
  }

  std::string name() const override { return "alignment"; }
  std::size_t items() const override { return reads_; }
  std::vector<std::string> region_names() const override { return {"dp_row", "verify"}; }
  model::feature_matrix features() const override { return features_; }
  void launch(const launch_request& r) override {
    dispatch(r, items(), [&](auto mode, auto redirect) {
      align_reads<decltype(mode)::value, decltype(redirect)::value>
          <<<grid_for(r.threads), threads_per_block, 0, r.stream>>>(set_, result_.data(), r.order,
                                                                    r.threads, r.sink, r.visits);
      MICROSCHED_CHECK_LAUNCH("align_reads");
    });
  }
  void poison_outputs(cudaStream_t s) override { result_.fill_bytes(0xff, s); }
  std::vector<std::uint32_t> outputs() const override { return as_words(result_.to_host()); }
  int blocks_per_sm(bool redirected) const override {
    return redirected ? resident_blocks(align_reads<probe_mode::off, true>)
                      : resident_blocks(align_reads<probe_mode::off, false>);
  }

 private:
  std::size_t reads_;
  model::feature_matrix features_;
  device_buffer<std::uint32_t> words_;
  device_buffer<std::uint32_t> start_;
  device_buffer<std::uint16_t> length_;
  device_buffer<std::uint32_t> pos_;
  device_buffer<std::uint32_t> ref_;
  device_buffer<uint2> result_;
  read_set set_{};
};

}  // namespace

std::unique_ptr<divergent_workload> make_alignment(std::size_t reads) {
  return std::make_unique<alignment>(reads);
}

}  // namespace microsched::model_kernels
