// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device tests (label gpu): the device remaps against the host references, and every remapped
// kernel against its original. Outputs are poisoned before each run.
#include <cooperative_groups.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "microsched/device_buffer.hpp"
#include "microsched/remap/reference.hpp"
#include "microsched/remap/remap.hpp"
#include "remap/device_array.hpp"
#include "remap/micro_branch.hpp"
#include "remap/realistic.hpp"

namespace cg = cooperative_groups;
using namespace microsched;
using namespace microsched::remap;
using namespace microsched::remap_kernels;

namespace {

//! Paths for `blocks` blocks of `threads`: i.i.d., skewed, block-uniform and warp-aligned blocks.
std::vector<unsigned> block_paths(unsigned blocks, unsigned threads, unsigned num_paths,
                                  std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<unsigned> draw(0, num_paths - 1);
  std::bernoulli_distribution rare(0.05);
  std::vector<unsigned> paths(std::size_t{blocks} * threads);
  for (unsigned b = 0; b < blocks; ++b) {
    const unsigned constant = draw(rng);
    for (unsigned t = 0; t < threads; ++t) {
      unsigned& p = paths[std::size_t{b} * threads + t];
      switch (b % 4) {
        case 0:
          p = draw(rng);
          break;
        case 1:
          p = rare(rng) ? draw(rng) : constant;
          break;
        case 2:
          p = constant;
          break;
        default:
          p = (t / warp_size) % num_paths;
          break;
      }
    }
  }
  return paths;
}

template <int S, class IdT>
__global__ void hot_table_kernel(const unsigned* cond, unsigned* id, unsigned* path,
                                 unsigned* ticket) {
  using hot = block_head_or_tail<S, IdT>;
  __shared__ typename hot::temp_storage storage;
  const unsigned tid = cg::this_thread_block().thread_rank();
  const unsigned g = blockIdx.x * S + tid;
  const auto r = hot(storage, tid).remap(cond[g] != 0);
  id[g] = r.id;
  path[g] = r.cond ? 1u : 0u;
  ticket[g] = r.ticket;
}

template <int S, int P, int N>
__global__ void dgi_table_kernel(const unsigned* paths, unsigned* id, unsigned* path) {
  using dgi = block_data_group_index<S, P, N>;
  __shared__ typename dgi::temp_storage storage;
  const unsigned tid = cg::this_thread_block().thread_rank();
  const unsigned g = blockIdx.x * S + tid;
  const auto r = dgi(storage, tid).remap(paths[g]);
  id[g] = r.id;
  path[g] = r.path;
}

constexpr unsigned table_blocks = 64;

template <int S, class IdT>
void verify_hot_table() {
  CAPTURE(S);
  CAPTURE(sizeof(IdT));
  const auto cond = block_paths(table_blocks, S, 2, 11 + S);
  device_array<unsigned> d_cond(cond), d_id(cond.size()), d_path(cond.size()),
      d_ticket(cond.size());
  d_id.fill_bytes(0xff);
  d_path.fill_bytes(0xff);
  hot_table_kernel<S, IdT>
      <<<table_blocks, S>>>(d_cond.data(), d_id.data(), d_path.data(), d_ticket.data());
  MICROSCHED_CHECK_LAUNCH("hot_table_kernel");
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  const auto id = d_id.to_host(), path = d_path.to_host(), ticket = d_ticket.to_host();
  for (unsigned b = 0; b < table_blocks; ++b) {
    CAPTURE(b);
    const std::span<const unsigned> block_cond(cond.data() + b * S, S);
    // The service order of the warps' atomics, from their tickets (slots taken before them).
    std::vector<unsigned> order(warps_in_block(S));
    std::iota(order.begin(), order.end(), 0u);
    auto served_before = [&](unsigned w) {
      const unsigned t = ticket[b * S + w * warp_size];
      return hot_ticket_heads(t) + hot_ticket_tails(t);
    };
    std::sort(order.begin(), order.end(),
              [&](unsigned x, unsigned y) { return served_before(x) < served_before(y); });
    const remap_table expected = head_or_tail_reference(block_cond, order);
    const std::vector<unsigned> got_id(id.begin() + b * S, id.begin() + (b + 1) * S);
    const std::vector<unsigned> got_path(path.begin() + b * S, path.begin() + (b + 1) * S);
    REQUIRE(got_id == expected.id);
    REQUIRE(got_path == expected.path);
  }
}

template <int S, int P, int N>
void verify_dgi_table() {
  CAPTURE(S);
  CAPTURE(P);
  CAPTURE(N);
  const auto paths = block_paths(table_blocks, S, P, 7 * S + P + N);
  device_array<unsigned> d_paths(paths), d_id(paths.size()), d_path(paths.size());
  d_id.fill_bytes(0xff);
  d_path.fill_bytes(0xff);
  dgi_table_kernel<S, P, N><<<table_blocks, S>>>(d_paths.data(), d_id.data(), d_path.data());
  MICROSCHED_CHECK_LAUNCH("dgi_table_kernel");
  MICROSCHED_CUDA_TRY(cudaDeviceSynchronize());
  const auto id = d_id.to_host(), path = d_path.to_host();
  for (unsigned b = 0; b < table_blocks; ++b) {
    CAPTURE(b);
    const std::span<const unsigned> block(paths.data() + b * S, S);
    const remap_table expected = data_group_index_reference(block, P, N);
    REQUIRE(std::vector<unsigned>(id.begin() + b * S, id.begin() + (b + 1) * S) == expected.id);
    REQUIRE(std::vector<unsigned>(path.begin() + b * S, path.begin() + (b + 1) * S) ==
            expected.path);
  }
}

template <int S, int... Ps>
void verify_dgi_sizes() {
  (verify_dgi_table<S, Ps, 4>(), ...);
  (verify_dgi_table<S, Ps, 16>(), ...);
  (verify_dgi_table<S, Ps, 64>(), ...);
}

struct payload {
  float value;
  unsigned tag;
  std::uint16_t small;
};

template <int S>
__global__ void exchange_kernel(const unsigned* paths, payload* out) {
  using dgi = block_data_group_index<S, 3>;
  using carrier = block_state_exchange<S, payload>;
  __shared__ typename dgi::temp_storage remap_storage;
  __shared__ typename carrier::temp_storage state_storage;
  const unsigned tid = cg::this_thread_block().thread_rank();
  const unsigned g = blockIdx.x * S + tid;
  carrier state(state_storage, tid);
  state.publish(payload{static_cast<float>(g) * 0.5f, g * 7u, static_cast<std::uint16_t>(g)});
  const auto r = dgi(remap_storage, tid).remap(paths[g]);
  out[g] = state.fetch(r.id);  // the state of the data this thread took over
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("device HoT equals the host reference (32- and 16-bit pools, partial warps)") {
  verify_hot_table<32, std::uint32_t>();
  verify_hot_table<61, std::uint32_t>();
  verify_hot_table<128, std::uint32_t>();
  verify_hot_table<256, std::uint32_t>();
  verify_hot_table<1024, std::uint32_t>();
  verify_hot_table<61, std::uint16_t>();
  verify_hot_table<256, std::uint16_t>();
  verify_hot_table<1024, std::uint16_t>();
  static_assert(block_head_or_tail<1024, std::uint16_t>::shared_bytes * 2 - 4 <=
                    block_head_or_tail<1024, std::uint32_t>::shared_bytes,
                "the 16-bit pool halves the shared memory");
}

TEST_CASE("device DGI equals the host reference (P in 2,3,4,8; N in 4,16,64)") {
  verify_dgi_sizes<61, 2, 3, 4, 8>();
  verify_dgi_sizes<256, 2, 3, 4, 8>();
  verify_dgi_sizes<1024, 2, 3, 4, 8>();
  verify_dgi_table<32, 3, 16>();
  verify_dgi_table<128, 3, 16>();
}

TEST_CASE("state exchange hands each value to the new owner of its data") {
  constexpr int S = 61;
  const auto paths = block_paths(8, S, 3, 5);
  device_array<unsigned> d_paths(paths);
  device_array<payload> d_out(paths.size());
  d_out.fill_bytes(0xff);
  exchange_kernel<S><<<8, S>>>(d_paths.data(), d_out.data());
  MICROSCHED_CHECK_LAUNCH("exchange_kernel");
  const auto out = d_out.to_host();
  for (unsigned b = 0; b < 8; ++b) {
    const auto expected =
        data_group_index_reference(std::span<const unsigned>(paths.data() + b * S, S), 3, 16);
    for (unsigned t = 0; t < S; ++t) {
      const unsigned source = b * S + expected.id[t];
      CHECK(out[b * S + t].tag == source * 7u);
      CHECK(out[b * S + t].value == static_cast<float>(source) * 0.5f);
      CHECK(out[b * S + t].small == static_cast<std::uint16_t>(source));
    }
  }
}

// ------------------------------------------------------------------------------------------------
// The documented example (docs/remap.md): a kernel before and after remapping.
// ------------------------------------------------------------------------------------------------

// example-begin per-element
//! Per-element code shared by both kernels: something worth computing before the branch, and
//! two expensive paths.
__device__ float prepare(float v) {
  return sqrtf(fabsf(v) + 1.0f);
}
__device__ float expensive_a(float v, float weight) {
  for (int k = 0; k < 64; ++k) v = fmaf(v, 0.999f, weight * 1e-3f);
  return v;
}
__device__ float expensive_b(float v, float weight) {
  for (int k = 0; k < 64; ++k) v = sinf(v) * weight;
  return v;
}
// example-end per-element

// example-begin original-kernel
__global__ void shade_original(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = in[i];
  const float weight = prepare(v);  // private state computed before the branch
  out[i] = v > 0.5f ? expensive_a(v, weight) : expensive_b(v, weight);
}
// example-end original-kernel

// example-begin remapped-kernel
#include <cooperative_groups.h>

#include <microsched/remap/head_or_tail.hpp>
#include <microsched/remap/state_exchange.hpp>

template <int BlockThreads>  // must equal blockDim.x: it sizes the shared id pool
__global__ void shade_remapped(const float* in, float* out, int n) {
  using remapper = microsched::remap::block_head_or_tail<BlockThreads>;
  using carrier = microsched::remap::block_state_exchange<BlockThreads, float>;
  __shared__ typename remapper::temp_storage remap_storage;
  __shared__ typename carrier::temp_storage state_storage;

  const unsigned tid = cooperative_groups::this_thread_block().thread_rank();
  const int base = blockIdx.x * BlockThreads;
  const bool valid = base + static_cast<int>(tid) < n;  // every thread joins the remap
  const float v = valid ? in[base + tid] : 0.0f;
  carrier state(state_storage, tid);
  state.publish(valid ? prepare(v) : 0.0f);  // travels with the data

  // Right before the branch: warps regroup so that their threads agree on the condition.
  const auto r = remapper(remap_storage, tid).remap(valid && v > 0.5f);

  const int i = base + static_cast<int>(r.id);  // reference redirection: the new id
  if (i >= n) return;
  const float weight = state.fetch(r.id);
  const float w = in[i];
  out[i] = r.cond ? expensive_a(w, weight) : expensive_b(w, weight);
}
// example-end remapped-kernel

template <int S>
void verify_example(int n) {
  CAPTURE(S);
  CAPTURE(n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> in(static_cast<std::size_t>(n));
  for (auto& v : in) v = u(rng);
  device_array<float> d_in(in), d_ref(in.size()), d_out(in.size());
  d_ref.fill_bytes(0xff);
  d_out.fill_bytes(0xff);
  const int blocks = (n + S - 1) / S;
  shade_original<<<blocks, S>>>(d_in.data(), d_ref.data(), n);
  MICROSCHED_CHECK_LAUNCH("shade_original");
  shade_remapped<S><<<blocks, S>>>(d_in.data(), d_out.data(), n);
  MICROSCHED_CHECK_LAUNCH("shade_remapped");
  CHECK(same_bits(d_ref.to_host(), d_out.to_host()));
}

TEST_CASE("the documented example gives the original's results") {
  verify_example<61>(10007);
  verify_example<128>(10007);
  verify_example<1024>(65536);
}

// ------------------------------------------------------------------------------------------------
// The documented DGI example (docs/remap.md): four paths from two nested branches, one remap,
// and the control-flow-efficiency counters.
// ------------------------------------------------------------------------------------------------

// example-begin dgi-paths
#include <microsched/remap/cfe_counter.hpp>

//! Two nested branches folded into one path number in [0, 4): (outer << 1) | inner.
__device__ unsigned classify(float v) {
  const unsigned outer = v > 0.5f;
  const unsigned inner = v * 8.0f - floorf(v * 8.0f) > 0.5f;
  return (outer << 1) | inner;
}

//! The four paths: 64 iterations each, counted as steps for the control-flow efficiency. The
//! result depends only on the data (v, path), never on which thread runs it.
template <bool Counted>
__device__ float run_path(unsigned path, float v, microsched::remap::cfe_counter<Counted>& cfe) {
  if (path == 0) {
    for (int k = 0; k < 64; ++k) {
      cfe.step();
      v = fmaf(v, 0.999f, 1e-3f);
    }
  } else if (path == 1) {
    for (int k = 0; k < 64; ++k) {
      cfe.step();
      v = sinf(v) + 0.5f;
    }
  } else if (path == 2) {
    for (int k = 0; k < 64; ++k) {
      cfe.step();
      v = sqrtf(fabsf(v) + 1.0f);
    }
  } else {
    for (int k = 0; k < 64; ++k) {
      cfe.step();
      v = v * 0.5f + cosf(v);
    }
  }
  return v;
}
// example-end dgi-paths

// example-begin dgi-original
template <bool Counted = false>
__global__ void classify_original(const float* in, float* out, int n,
                                  microsched::remap::cfe_totals* totals) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  microsched::remap::cfe_counter<Counted> cfe(threadIdx.x % 32);
  if (i < n) out[i] = run_path(classify(in[i]), in[i], cfe);
  cfe.flush(totals);  // where the warp has reconverged
}
// example-end dgi-original

// example-begin dgi-kernel
#include <cooperative_groups.h>

#include <microsched/remap/cfe_counter.hpp>
#include <microsched/remap/data_group_index.hpp>

template <int BlockThreads, bool Counted = false>  // BlockThreads must equal blockDim.x
__global__ void classify_remapped(const float* in, float* out, int n,
                                  microsched::remap::cfe_totals* totals) {
  constexpr int paths = 4;
  using remapper = microsched::remap::block_data_group_index<BlockThreads, paths>;  // N = 16
  __shared__ typename remapper::temp_storage storage;

  const unsigned tid = cooperative_groups::this_thread_block().thread_rank();
  const int base = blockIdx.x * BlockThreads;
  const bool valid = base + static_cast<int>(tid) < n;
  // Every thread joins the remap (it has a barrier); threads past n take any valid path. The
  // path must be below `paths`: the element of a thread with a larger one is dropped.
  const unsigned path = valid ? classify(in[base + tid]) : paths - 1;

  const auto r = remapper(storage, tid).remap(path);
  // r.id: the data this thread now processes (its native id in the block); r.path: that data's
  // path, not evaluated again; r.remapped: false when the block took one path and nothing moved.

  const int i = base + static_cast<int>(r.id);
  microsched::remap::cfe_counter<Counted> cfe(tid % 32);
  if (i < n) out[i] = run_path(r.path, in[i], cfe);  // the data is read at its own id
  cfe.flush(totals);
}
// example-end dgi-kernel

TEST_CASE("the documented DGI example gives the original's results and raises the CFE") {
  using microsched::device_buffer;
  const int n = 100003;  // not a multiple of the block size: threads past n join the remap
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> in(static_cast<std::size_t>(n));
  for (auto& v : in) v = u(rng);
  const device_buffer<float> d_in(in);
  device_buffer<float> d_ref(in.size());
  device_buffer<float> d_out(in.size());
  d_ref.fill_bytes(0xff);
  d_out.fill_bytes(0xff);
  constexpr int block = 256;
  const int blocks = (n + block - 1) / block;
  classify_original<<<blocks, block>>>(d_in.data(), d_ref.data(), n, nullptr);
  MICROSCHED_CHECK_LAUNCH("classify_original");
  classify_remapped<block><<<blocks, block>>>(d_in.data(), d_out.data(), n, nullptr);
  MICROSCHED_CHECK_LAUNCH("classify_remapped");
  CHECK(same_bits(d_ref.to_host(), d_out.to_host()));

  // example-begin dgi-cfe
  microsched::device_buffer<microsched::remap::cfe_totals> totals(1);
  totals.fill_bytes(0);  // the counters add to it
  classify_remapped<256, true><<<blocks, 256>>>(d_in.data(), d_out.data(), n, totals.data());
  const double cfe = microsched::remap::cfe_ratio(totals.to_host()[0]);  // in [0, 1]
  // example-end dgi-cfe
  MICROSCHED_CHECK_LAUNCH("classify_remapped<counted>");
  totals.fill_bytes(0);
  classify_original<true><<<blocks, block>>>(d_in.data(), d_ref.data(), n, totals.data());
  MICROSCHED_CHECK_LAUNCH("classify_original<counted>");
  const double original_cfe = microsched::remap::cfe_ratio(totals.to_host()[0]);
  CAPTURE(original_cfe);
  CAPTURE(cfe);
  // Four paths of equal length, drawn about uniformly: ~1/4 before; after the remap only the
  // warps a group border falls in stay mixed (74% for i.i.d. paths and 256 threads).
  CHECK(original_cfe < 0.35);
  CHECK(cfe > 0.65);
  CHECK(same_bits(d_ref.to_host(), d_out.to_host()));
}

TEST_CASE("micro-benchmark: every remapped configuration equals the original, bit for bit") {
  const int n = 256 * 1024 * 2 + 37;  // not a multiple of any block size
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> operand(static_cast<std::size_t>(n));
  for (auto& v : operand) v = u(rng);
  device_array<float> d_operand(operand), d_ref(operand.size()), d_out(operand.size());
  for (const int paths : {2, 4, 8}) {
    for (const int block : {256, 1024}) {
      const auto path = make_paths(n, paths, block, path_distribution::iid, 5u + paths);
      device_array<std::uint8_t> d_path(path);
      micro_config base{paths, block, 16, 32, remap_variant::original};
      if (!micro_supported(base)) continue;
      d_ref.fill_bytes(0xff);
      launch_micro_branch(base, d_operand.data(), d_path.data(), d_ref.data(), n, nullptr, nullptr);
      const auto ref = d_ref.to_host();
      for (const auto variant : {remap_variant::head_or_tail, remap_variant::head_or_tail16,
                                 remap_variant::data_group_index}) {
        for (const int hood : {4, 16, 64}) {
          micro_config config = base;
          config.variant = variant;
          config.neighbouring = hood;
          if (!micro_supported(config) ||
              (variant != remap_variant::data_group_index && hood != 16))
            continue;
          CAPTURE(paths);
          CAPTURE(block);
          CAPTURE(hood);
          CAPTURE(variant_name(variant));
          d_out.fill_bytes(0xff);
          launch_micro_branch(config, d_operand.data(), d_path.data(), d_out.data(), n, nullptr,
                              nullptr);
          CHECK(same_bits(ref, d_out.to_host()));
        }
      }
    }
  }
  CHECK_THROWS_AS(launch_micro_branch({3, 256, 16, 32, remap_variant::data_group_index},
                                      d_operand.data(), nullptr, d_out.data(), n, nullptr, nullptr),
                  std::invalid_argument);
}

TEST_CASE("control-flow efficiency counters: ~1/P before, near 1 after a balanced remap") {
  const int n = 1 << 18;
  std::vector<float> operand(static_cast<std::size_t>(n), 0.25f);
  device_array<float> d_operand(operand), d_out(operand.size());
  device_array<cfe_totals> d_cfe(1);
  auto measure = [&](int paths, remap_variant variant, path_distribution dist) {
    const auto path = make_paths(n, paths, 256, dist, 9);
    device_array<std::uint8_t> d_path(path);
    d_cfe.fill_bytes(0);
    launch_micro_branch({paths, 256, 16, 16, variant}, d_operand.data(), d_path.data(),
                        d_out.data(), n, d_cfe.data(), nullptr);
    return cfe_ratio(d_cfe.to_host()[0]);
  };
  CHECK(measure(2, remap_variant::original, path_distribution::iid) ==
        doctest::Approx(0.5).epsilon(0.02));
  CHECK(measure(4, remap_variant::original, path_distribution::iid) ==
        doctest::Approx(0.25).epsilon(0.02));
  CHECK(measure(2, remap_variant::original, path_distribution::uniform) == doctest::Approx(1.0));
  CHECK(measure(2, remap_variant::head_or_tail, path_distribution::balanced) >= 0.97);
  CHECK(measure(4, remap_variant::data_group_index, path_distribution::balanced) >= 0.97);
  CHECK(measure(2, remap_variant::head_or_tail, path_distribution::iid) > 0.85);
}

void verify_chi_square(int block) {
  CAPTURE(block);
  const int n = 100003;
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> ua(0.5f, 30.0f), ur(0.2f, 2.0f);
  std::vector<float> a(static_cast<std::size_t>(n)), x(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = ua(rng), x[i] = a[i] * ur(rng);
  device_array<float> d_a(a), d_x(x), d_ref(a.size()), d_out(a.size());
  d_ref.fill_bytes(0xff);
  launch_chi_square_pvalues(remap_variant::original, block, d_a.data(), d_x.data(), d_ref.data(), n,
                            nullptr, nullptr);
  const auto ref = d_ref.to_host();
  for (std::size_t i = 0; i < ref.size(); i += 997) {
    CHECK(ref[i] >= -1e-3f);
    CHECK(ref[i] <= 1.001f);
  }
  for (const auto v : {remap_variant::head_or_tail, remap_variant::head_or_tail16,
                       remap_variant::data_group_index}) {
    CAPTURE(variant_name(v));
    d_out.fill_bytes(0xff);
    launch_chi_square_pvalues(v, block, d_a.data(), d_x.data(), d_out.data(), n, nullptr, nullptr);
    CHECK(same_bits(ref, d_out.to_host()));
  }
}

void verify_model_tree(int block) {
  CAPTURE(block);
  const int n = 100003;
  std::mt19937 rng(29);
  upload_model_tree_weights(42);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> records(static_cast<std::size_t>(n) * model_tree_features);
  for (auto& f : records) f = u(rng);
  device_array<float> d_records(records), d_ref(static_cast<std::size_t>(n)),
      d_out(static_cast<std::size_t>(n));
  d_ref.fill_bytes(0xff);
  d_out.fill_bytes(0xff);
  launch_model_tree(remap_variant::original, block, d_records.data(), d_ref.data(), n, nullptr,
                    nullptr);
  launch_model_tree(remap_variant::data_group_index, block, d_records.data(), d_out.data(), n,
                    nullptr, nullptr);
  CHECK(same_bits(d_ref.to_host(), d_out.to_host()));
  CHECK_THROWS_AS(launch_model_tree(remap_variant::head_or_tail, block, d_records.data(),
                                    d_out.data(), n, nullptr, nullptr),
                  std::invalid_argument);
}

TEST_CASE("realistic kernels: chi-square p-values remapped (HoT, HoT16, DGI) equal the original") {
  verify_chi_square(256);
  verify_chi_square(1024);
  CHECK_THROWS_AS(launch_chi_square_pvalues(remap_variant::original, 512, nullptr, nullptr, nullptr,
                                            1, nullptr, nullptr),
                  std::invalid_argument);
}

TEST_CASE("realistic kernels: model tree remapped (DGI, four leaves) equals the original") {
  verify_model_tree(256);
  verify_model_tree(1024);
}
