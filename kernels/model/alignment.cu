// Banded local alignment (Smith-Waterman, linear gaps) of short reads against a reference, the
// divergence of the bioinformatics kernels of the paper: each read extends row by row along its
// claimed position and stops early when it cannot score any more (x-drop) or looks unrelated,
// and only reads that align well pay for a verification pass over their bases.
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

struct read_set {
  const std::uint8_t* bases;   // all reads back to back
  const std::uint32_t* start;  // (read) -> first base
  const std::uint16_t* length;
  const std::uint32_t* ref_pos;
  const std::uint8_t* ref;
  std::uint32_t ref_length;
};

// regions: 0 dp row (per row of the read), 1 verify (per base of a read that aligned)
template <probe_mode Mode, bool Redirect>
__global__ void align_reads(read_set s, uint2* result, const std::uint32_t* order,
                            std::uint32_t threads, model::bbv_sink sink, unsigned* visits) {
  std::uint32_t read;
  if (!item_of<Redirect>(blockIdx.x * blockDim.x + threadIdx.x, order, threads, read)) return;
  if (visits != nullptr) atomicAdd(visits + read, 1u);
  model::bbv_probe<2, Mode> probe;
  const std::uint8_t* q = s.bases + s.start[read];
  const int length = s.length[read];
  const int pos = static_cast<int>(s.ref_pos[read]);  // >= band, pos + length + band <= ref_length
  int h[width];
#pragma unroll
  for (int d = 0; d < width; ++d) h[d] = 0;
  int best = 0, best_row = 0, rows = 0;
  for (int i = 0; i < length; ++i) {
    probe.enter();
    const int qi = q[i];
    int left = 0, row_best = 0;  // h of the cell to the left in this row
#pragma unroll
    for (int d = 0; d < width; ++d) {  // cell (i, j = i + d - band), diagonal d
      const int rj = s.ref[pos + i + d - band];
      const int diag = h[d] + (qi == rj ? match : mismatch);
      const int up = d + 1 < width ? h[d + 1] + gap : 0;  // (i - 1, j) lies on diagonal d + 1
      const int v = max(max(0, diag), max(up, left + gap));
      h[d] = v;
      left = v;
      row_best = max(row_best, v);
    }
    ++rows;
    if (row_best > best) best = row_best, best_row = i;
    probe.template leave<0>();
    if (best - row_best > x_drop || (rows >= hopeless_rows && best < rows / 4)) break;
  }
  unsigned check = 0;
  if (best >= length) {  // aligned: verify base by base around the claimed diagonal
    for (int i = 0; i < length; ++i) {
      probe.enter();
      const unsigned a = q[i], b = s.ref[pos + i];
      check = (check ^ (a * 4u + b)) * 0x9e3779b1u;
      check ^= check >> 15;
      probe.template leave<1>();
    }
  }
  result[read] = make_uint2(static_cast<unsigned>(best) | (static_cast<unsigned>(rows) << 16),
                            check ^ static_cast<unsigned>(best_row));
  probe.flush(sink, read);
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
    std::vector<std::uint32_t> start(reads), pos(reads);
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
      features_.values.insert(features_.values.end(),
                              {double(length[r]), double(prefix), length[r] * prefix / 16.0});
    }
    bases_ = device_buffer<std::uint8_t>(bases);
    start_ = device_buffer<std::uint32_t>(start);
    length_ = device_buffer<std::uint16_t>(length);
    pos_ = device_buffer<std::uint32_t>(pos);
    ref_ = device_buffer<std::uint8_t>(ref);
    result_ = device_buffer<uint2>(reads);
    set_ = {bases_.data(), start_.data(), length_.data(), pos_.data(), ref_.data(), ref_length};
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
  std::vector<std::uint32_t> outputs() const override {
    const auto v = result_.to_host();
    std::vector<std::uint32_t> words(v.size() * 2);
    std::memcpy(words.data(), v.data(), words.size() * sizeof(std::uint32_t));
    return words;
  }
  int blocks_per_sm(bool redirected) const override {
    int blocks = 0;
    MICROSCHED_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks,
        redirected ? align_reads<probe_mode::off, true> : align_reads<probe_mode::off, false>,
        threads_per_block, 0));
    return blocks;
  }

 private:
  std::size_t reads_;
  model::feature_matrix features_;
  device_buffer<std::uint8_t> bases_;
  device_buffer<std::uint32_t> start_;
  device_buffer<std::uint16_t> length_;
  device_buffer<std::uint32_t> pos_;
  device_buffer<std::uint8_t> ref_;
  device_buffer<uint2> result_;
  read_set set_{};
};

}  // namespace

std::unique_ptr<divergent_workload> make_alignment(std::size_t reads) {
  return std::make_unique<alignment>(reads);
}

}  // namespace microsched::model_kernels
