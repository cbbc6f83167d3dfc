// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The heaviest rays of an image (ray_work.hpp).
#include "raycast/ray_work.hpp"

#include <algorithm>
#include <numeric>

namespace microsched::switching_workloads::detail {

std::vector<std::uint32_t> heaviest_rays(const std::vector<std::uint32_t>& per_ray,
                                         double shade_weight, std::size_t each) {
  std::vector<std::uint32_t> order(per_ray.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::uint32_t> picked;
  const auto take = [&](auto&& key) {
    const std::size_t k = std::min(each, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return key(a) > key(b); });
    for (std::size_t i = 0; i < k; ++i) {
      if (std::find(picked.begin(), picked.end(), order[i]) == picked.end()) {
        picked.push_back(order[i]);
      }
    }
  };
  take([&](std::uint32_t p) { return static_cast<double>(ray_samples(per_ray[p])); });
  take([&](std::uint32_t p) { return static_cast<double>(ray_shades(per_ray[p])); });
  take([&](std::uint32_t p) {
    return ray_samples(per_ray[p]) + shade_weight * ray_shades(per_ray[p]);
  });
  return picked;
}

}  // namespace microsched::switching_workloads::detail
