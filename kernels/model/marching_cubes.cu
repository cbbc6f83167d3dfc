// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Marching cubes after the CUDA samples' marchingCubes: a classify pass counts each voxel's
// vertices (vertex-count table), an exclusive scan gives each voxel its output offset, and the
// generate pass (the timed, divergent kernel) writes every voxel's triangles with a normal per
// vertex from the field's gradient. Empty voxels stop after their corners; a voxel with 15
// vertices evaluates the field 90 more times: the divergence is in the vertex loop.
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "microsched/device_buffer.hpp"
#include "model/launch_modes.cuh"
#include "model/mc_tables.hpp"

namespace microsched::model_kernels {

namespace {

constexpr int balls = 12;
constexpr float iso = 1.0f;
using model::probe_mode;

struct field_params {
  float4 ball[balls];  // (x, y, z, r^2)
  float noise;         // amplitude of a ripple that makes many small surfaces
};

__constant__ field_params c_field;
__constant__ std::int8_t c_tri[256][16];
__constant__ std::uint8_t c_count[256];

__device__ __forceinline__ float field(float x, float y, float z) {
  float v = c_field.noise * __sinf(23.0f * x) * __sinf(19.0f * y) * __sinf(29.0f * z);
#pragma unroll
  for (int b = 0; b < balls; ++b) {
    const float dx = x - c_field.ball[b].x, dy = y - c_field.ball[b].y, dz = z - c_field.ball[b].z;
    v += c_field.ball[b].w / (dx * dx + dy * dy + dz * dz + 1e-3f);
  }
  return v;
}

struct voxel_grid {
  int n;    // voxels per side
  float h;  // voxel size (the grid spans [0, 1]^3)
};

__device__ __forceinline__ float3 corner_pos(voxel_grid g, std::uint32_t voxel, int c) {
  const int x = static_cast<int>(voxel % g.n), y = static_cast<int>((voxel / g.n) % g.n),
            z = static_cast<int>(voxel / (g.n * g.n));
  constexpr int corner_bits[8] = {0, 1, 3, 2, 4, 5, 7, 6};  // x = bit 0, y = bit 1, z = bit 2
  const int bits = corner_bits[c];
  return make_float3((x + (bits & 1)) * g.h, (y + ((bits >> 1) & 1)) * g.h,
                     (z + (bits >> 2)) * g.h);
}

__device__ __forceinline__ unsigned cube_index(voxel_grid g, std::uint32_t voxel, float (&f)[8]) {
  unsigned index = 0;
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const float3 p = corner_pos(g, voxel, c);
    f[c] = field(p.x, p.y, p.z);
    index |= (f[c] < iso ? 1u : 0u) << c;
  }
  return index;
}

__global__ void mc_classify(voxel_grid g, std::uint32_t* vertex_count) {
  const std::uint32_t voxel = blockIdx.x * blockDim.x + threadIdx.x;
  if (voxel >= static_cast<std::uint32_t>(g.n * g.n * g.n)) return;
  float f[8];
  vertex_count[voxel] = c_count[cube_index(g, voxel, f)];
}

// regions: 0 corners (every voxel), 1 edges (a voxel the surface crosses), 2 vertex (per vertex)
template <probe_mode Mode, bool Redirect>
__global__ void mc_generate(voxel_grid g, const std::uint32_t* offset, float4* out,
                            const std::uint32_t* order, std::uint32_t threads, model::bbv_sink sink,
                            unsigned* visits) {
  std::uint32_t voxel;
  if (!item_of<Redirect>(blockIdx.x * blockDim.x + threadIdx.x, order, threads, voxel)) return;
  if (visits != nullptr) atomicAdd(visits + voxel, 1u);
  model::bbv_probe<3, Mode> probe;
  float f[8];
  const unsigned cube = cube_index(g, voxel, f);
  const int count = c_count[cube];
  probe.template leave<0>();
  if (count > 0) {
    float3 vert[12];
#pragma unroll
    for (int e = 0; e < 12; ++e) {
      const int a = e < 8 ? e : e - 8, b = e < 8 ? (e % 4 == 3 ? e - 3 : e + 1) : e - 4;
      const float3 pa = corner_pos(g, voxel, a), pb = corner_pos(g, voxel, b);
      const float t = (iso - f[a]) / (f[b] - f[a]);
      vert[e] =
          make_float3(pa.x + t * (pb.x - pa.x), pa.y + t * (pb.y - pa.y), pa.z + t * (pb.z - pa.z));
    }
    probe.template leave<1>();
    const std::uint32_t base = offset[voxel];
    for (int i = 0; i < count; ++i) {
      const int e = c_tri[cube][i];
      float3 p = vert[0];
#pragma unroll
      for (int k = 1; k < 12; ++k) p = k == e ? vert[k] : p;  // registers, no local memory
      const float d = 0.25f * g.h;
      const float nx = field(p.x + d, p.y, p.z) - field(p.x - d, p.y, p.z);
      const float ny = field(p.x, p.y + d, p.z) - field(p.x, p.y - d, p.z);
      const float nz = field(p.x, p.y, p.z + d) - field(p.x, p.y, p.z - d);
      const float inv = rsqrtf(nx * nx + ny * ny + nz * nz + 1e-20f);
      out[2 * (base + i)] = make_float4(p.x, p.y, p.z, 1.0f);
      out[2 * (base + i) + 1] = make_float4(nx * inv, ny * inv, nz * inv, 0.0f);
      probe.template leave<2>();
    }
  }
  probe.flush(sink, voxel);
}

class marching_cubes final : public divergent_workload {
 public:
  explicit marching_cubes(int grid) : grid_{grid, 1.0f / static_cast<float>(grid)} {
    if (grid < 2 || grid > 1024) throw_invalid("grid", grid, "must be in [2, 1024]");
    const std::size_t n = items();
    const auto& tables = marching_cubes_tables();
    MICROSCHED_CUDA_TRY(cudaMemcpyToSymbol(c_tri, tables.triangles.data(), sizeof(c_tri)));
    MICROSCHED_CUDA_TRY(cudaMemcpyToSymbol(c_count, tables.vertex_count.data(), sizeof(c_count)));
    field_params params{};
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> pos(0.15f, 0.85f), radius(0.06f, 0.14f);
    for (auto& b : params.ball) {
      const float r = radius(rng);
      b = make_float4(pos(rng), pos(rng), pos(rng), r * r);
    }
    params.noise = 0.35f;
    MICROSCHED_CUDA_TRY(cudaMemcpyToSymbol(c_field, &params, sizeof(params)));
    device_buffer<std::uint32_t> counts(n);
    mc_classify<<<grid_for(static_cast<std::uint32_t>(n)), threads_per_block>>>(grid_,
                                                                                counts.data());
    MICROSCHED_CHECK_LAUNCH("mc_classify");
    vertex_count_ = counts.to_host();
    std::vector<std::uint32_t> offsets(n);
    std::exclusive_scan(vertex_count_.begin(), vertex_count_.end(), offsets.begin(), 0u);
    vertices_ = offsets.back() + vertex_count_.back();
    offset_ = device_buffer<std::uint32_t>(offsets);
    out_ = device_buffer<float4>(2 * std::max<std::size_t>(vertices_, 1));
  }

  std::string name() const override { return "marching_cubes"; }
  std::size_t items() const override {
    return static_cast<std::size_t>(grid_.n) * grid_.n * grid_.n;
  }
  std::vector<std::string> region_names() const override { return {"corners", "edges", "vertex"}; }
  model::feature_matrix features() const override {
    model::feature_matrix f{items(), 2, {}};
    f.values.reserve(2 * items());
    for (const std::uint32_t c : vertex_count_)
      f.values.insert(f.values.end(), {double(c), c > 0 ? 1.0 : 0.0});
    return f;
  }
  void launch(const launch_request& r) override {
    dispatch(r, items(), [&](auto mode, auto redirect) {
      mc_generate<decltype(mode)::value, decltype(redirect)::value>
          <<<grid_for(r.threads), threads_per_block, 0, r.stream>>>(
              grid_, offset_.data(), out_.data(), r.order, r.threads, r.sink, r.visits);
      MICROSCHED_CHECK_LAUNCH("mc_generate");
    });
  }
  void poison_outputs(cudaStream_t s) override { out_.fill_bytes(0xff, s); }
  std::vector<std::uint32_t> outputs() const override { return as_words(out_.to_host()); }
  int blocks_per_sm(bool redirected) const override {
    return redirected ? resident_blocks(mc_generate<probe_mode::off, true>)
                      : resident_blocks(mc_generate<probe_mode::off, false>);
  }

 private:
  voxel_grid grid_;
  std::vector<std::uint32_t> vertex_count_;
  std::size_t vertices_ = 0;
  device_buffer<std::uint32_t> offset_;
  device_buffer<float4> out_;
};

}  // namespace

std::unique_ptr<divergent_workload> make_marching_cubes(int grid) {
  return std::make_unique<marching_cubes>(grid);
}

}  // namespace microsched::model_kernels
