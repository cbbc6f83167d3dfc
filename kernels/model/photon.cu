// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Monte Carlo photon transport through a layered slab, one photon per item: each step samples a
// free path; a photon that reaches a layer boundary is reflected or transmitted, one that stays
// in its layer scatters (Henyey-Greenstein) and is absorbed in part, and a light photon plays
// Russian roulette. Photons start in layers of very different albedo, so their step counts and
// paths differ by orders of magnitude. Random numbers are a counter hash of (photon, draw), so a
// photon's walk does not depend on the thread that runs it.
#include <cstring>
#include <random>

#include "lowbias32.hpp"
#include "microsched/device_buffer.hpp"
#include "model/launch_modes.cuh"

namespace microsched::model_kernels {

namespace {

using model::probe_mode;
constexpr int layers = 4;
constexpr int max_steps = 4000;

struct slab {
  float top[layers + 1];  // layer boundaries, depth grows downwards; top[0] = 0
  float mu_a[layers];     // absorption per unit length
  float mu_s[layers];     // scattering per unit length
  float g[layers];        // anisotropy
  float n[layers];        // refractive index
};

__constant__ slab c_slab;

__device__ __forceinline__ float uniform(std::uint32_t photon, std::uint32_t& draw) {
  const std::uint32_t x = kernels::lowbias32(photon * 0x9e3779b9u ^ (draw++ * 0x85ebca6bu));
  return (static_cast<float>(x >> 8) + 0.5f) * (1.0f / 16777216.0f);
}

struct photon_start {
  std::uint8_t layer;
  float depth;
};

// regions: 0 step (every step), 1 boundary (reflect / transmit), 2 scatter, 3 roulette; 1 to 3
// are branches inside the step loop (region_loops)
template <probe_mode Mode, bool Redirect>
__global__ void transport(const photon_start* start, float2* result, const std::uint32_t* order,
                          std::uint32_t threads, model::bbv_sink sink, unsigned* visits) {
  std::uint32_t photon;
  if (!item_of<Redirect>(blockIdx.x * blockDim.x + threadIdx.x, order, threads, photon)) return;
  if (visits != nullptr) atomicAdd(visits + photon, 1u);
  model::bbv_probe<4, Mode> probe;
  std::uint32_t draw = 0;
  int layer = start[photon].layer;
  float z = start[photon].depth, uz = 1.0f, weight = 1.0f;
  int steps = 0;
  for (; steps < max_steps && weight > 0.0f; ++steps) {
    const float mu_t = c_slab.mu_a[layer] + c_slab.mu_s[layer];
    const float s = -__logf(uniform(photon, draw)) / mu_t;
    const float bound = uz > 0 ? c_slab.top[layer + 1] : c_slab.top[layer];
    const bool hits = uz != 0.0f && (bound - z) / uz < s;
    probe.template leave<0>();
    if (hits) {
      z = bound;
      const int next = layer + (uz > 0 ? 1 : -1);
      const float n1 = c_slab.n[layer], n2 = next >= 0 && next < layers ? c_slab.n[next] : 1.0f;
      const float r = (n1 - n2) / (n1 + n2);
      if (uniform(photon, draw) < r * r) {
        uz = -uz;  // reflected
      } else if (next < 0 || next >= layers) {
        probe.template leave<1>();
        break;  // escaped
      } else {
        layer = next;
      }
      probe.template leave<1>();
    } else {
      z += s * uz;
      weight *= c_slab.mu_s[layer] / mu_t;
      const float g = c_slab.g[layer], xi = uniform(photon, draw);
      const float t = (1.0f - g * g) / (1.0f - g + 2.0f * g * xi);
      const float cos_theta = (1.0f + g * g - t * t) / (2.0f * g);
      const float phi = 6.2831853f * uniform(photon, draw);
      const float sin_theta = sqrtf(fmaxf(0.0f, 1.0f - cos_theta * cos_theta));
      const float sz = sqrtf(fmaxf(0.0f, 1.0f - uz * uz));
      uz = fminf(1.0f, fmaxf(-1.0f, sin_theta * __cosf(phi) * sz + uz * cos_theta));
      probe.template leave<2>();
      if (weight < 1e-3f) {
        weight = uniform(photon, draw) < 0.1f ? weight * 10.0f : 0.0f;
        probe.template leave<3>();
      }
    }
  }
  result[photon] = make_float2(weight, z + static_cast<float>(steps));
  probe.flush(sink, photon);
}

class photon_transport final : public divergent_workload {
 public:
  explicit photon_transport(std::size_t photons) : photons_(photons) {
    if (photons == 0 || photons > (1u << 26))
      throw_invalid("photons", photons, "must be in [1, 2^26]");
    // a thin clear layer, a strongly scattering one, an absorbing one, a turbid bottom layer
    const slab s{{0.0f, 0.05f, 1.0f, 1.2f, 3.0f},
                 {0.01f, 0.02f, 8.0f, 0.1f},
                 {1.0f, 60.0f, 2.0f, 20.0f},
                 {0.5f, 0.9f, 0.3f, 0.8f},
                 {1.33f, 1.4f, 1.45f, 1.38f}};
    MICROSCHED_CUDA_TRY(cudaMemcpyToSymbol(c_slab, &s, sizeof(s)));
    std::mt19937 rng(3);
    std::discrete_distribution<int> layer({0.3, 0.25, 0.25, 0.2});
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<photon_start> starts(photons);
    features_ = model::feature_matrix{photons, 6, {}};
    for (auto& p : starts) {
      p.layer = static_cast<std::uint8_t>(layer(rng));
      p.depth = s.top[p.layer] + u(rng) * (s.top[p.layer + 1] - s.top[p.layer]);
      // the layer (one-hot), the depth and the depth within the layer
      for (int l = 0; l < 4; ++l) features_.values.push_back(p.layer == l ? 1.0 : 0.0);
      features_.values.push_back(p.depth);
      features_.values.push_back((p.depth - s.top[p.layer]) /
                                 (s.top[p.layer + 1] - s.top[p.layer]));
    }
    start_ = device_buffer<photon_start>(starts);
    result_ = device_buffer<float2>(photons);
  }

  std::string name() const override { return "photon"; }
  std::size_t items() const override { return photons_; }
  std::vector<std::string> region_names() const override {
    return {"step", "boundary", "scatter", "roulette"};
  }
  // boundary, scatter and roulette are branches of the step loop: a warp whose lanes alternate
  // between boundary and scatter runs both in most iterations
  // example-begin region-loops
  std::vector<std::int32_t> region_loops() const override {
    return {-1, 0, 0, 0};  // loop_of: step is the loop, the others branch inside it
  }
  // example-end region-loops
  model::feature_matrix features() const override { return features_; }
  void launch(const launch_request& r) override {
    dispatch(r, items(), [&](auto mode, auto redirect) {
      transport<decltype(mode)::value, decltype(redirect)::value>
          <<<grid_for(r.threads), threads_per_block, 0, r.stream>>>(
              start_.data(), result_.data(), r.order, r.threads, r.sink, r.visits);
      MICROSCHED_CHECK_LAUNCH("transport");
    });
  }
  void poison_outputs(cudaStream_t s) override { result_.fill_bytes(0xff, s); }
  std::vector<std::uint32_t> outputs() const override { return as_words(result_.to_host()); }
  int blocks_per_sm(bool redirected) const override {
    return redirected ? resident_blocks(transport<probe_mode::off, true>)
                      : resident_blocks(transport<probe_mode::off, false>);
  }

 private:
  std::size_t photons_;
  model::feature_matrix features_;
  device_buffer<photon_start> start_;
  device_buffer<float2> result_;
};

}  // namespace

std::unique_ptr<divergent_workload> make_photon(std::size_t photons) {
  return std::make_unique<photon_transport>(photons);
}

}  // namespace microsched::model_kernels
