// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ray caster's per-ray work words and the heaviest rays the tail's bound times alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "raycast/ray_work.hpp"

using namespace microsched::switching_workloads::detail;

TEST_CASE("a ray's work word keeps its samples and shades, and saturates past their fields") {
  CHECK(ray_samples(ray_work_word(1307, 18)) == 1307);
  CHECK(ray_shades(ray_work_word(1307, 18)) == 18);
  CHECK(ray_samples(ray_work_word(0, 0)) == 0);
  CHECK(ray_samples(ray_work_word(1u << 24, 3)) == (1u << 24) - 1);
  CHECK(ray_shades(ray_work_word(5, 300)) == 255);
  CHECK(ray_samples(ray_work_word(5, 300)) == 5);  // a large shade count leaves the samples
}

TEST_CASE("the heaviest rays: the most samples, the most shades, the most weighted work, once") {
  // Pixel 0 has the most samples, 1 the most shades, 2 the most work at 100 samples a shade;
  // 3 is second by samples; the rest are light.
  const std::vector<std::uint32_t> rays = {ray_work_word(3000, 0),  ray_work_word(10, 40),
                                           ray_work_word(2000, 30), ray_work_word(2900, 1),
                                           ray_work_word(5, 1),     ray_work_word(7, 2)};
  const auto one = heaviest_rays(rays, 100.0, 1);
  CHECK(one == std::vector<std::uint32_t>{0, 1, 2});
  const auto two = heaviest_rays(rays, 100.0, 2);
  // Samples: 0, 3; shades: 1, 2; work (0: 3000, 1: 4010, 2: 5000, 3: 3000): 2 and 1, taken.
  CHECK(two == std::vector<std::uint32_t>{0, 3, 1, 2});
  // No pixel twice, whatever the overlap.
  const auto all = heaviest_rays(rays, 1.0, rays.size());
  CHECK(all.size() == rays.size());
  std::vector<std::uint32_t> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("the heaviest rays of an empty image, or of fewer rays than asked") {
  CHECK(heaviest_rays({}, 1.0, 4).empty());
  CHECK(heaviest_rays({ray_work_word(1, 0)}, 1.0, 4) == std::vector<std::uint32_t>{0});
}
