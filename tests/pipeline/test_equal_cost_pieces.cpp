// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// unwrap's pieces of equal gather cost (kernels/pipeline/equal_cost_pieces.hpp) against a
// reference that marks each piece's lines in a table, on polar maps like unwrap's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <tuple>
#include <vector>

#include "equal_cost_pieces.hpp"

using microsched::pipeline::workloads::equal_cost_pieces;

namespace {

std::vector<std::uint32_t> polar_map(int width, int height, int radii, int angles) {
  std::vector<std::uint32_t> map(static_cast<std::size_t>(radii) *
                                 static_cast<std::size_t>(angles));
  const double cx = width / 2.0, cy = height / 2.0, rmax = std::min(width, height) / 2.0 - 1;
  for (int r = 0; r < radii; ++r)
    for (int a = 0; a < angles; ++a) {
      const double rr = rmax * (r + 0.5) / radii, th = 2 * std::numbers::pi * a / angles;
      const int x = std::clamp(static_cast<int>(cx + rr * std::cos(th)), 0, width - 1);
      const int y = std::clamp(static_cast<int>(cy + rr * std::sin(th)), 0, height - 1);
      map[static_cast<std::size_t>(r) * static_cast<std::size_t>(angles) +
          static_cast<std::size_t>(a)] = static_cast<std::uint32_t>(y * width + x);
    }
  return map;
}

//! The cost of each piece, counting a piece's lines with a table of marks.
std::vector<double> piece_costs(const std::vector<std::uint32_t>& map, std::size_t bytes,
                                const std::vector<std::size_t>& bounds, double line_weight = 5) {
  std::vector<double> costs;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    std::vector<char> seen((bytes + 63) / 64, 0);
    double c = 0;
    for (std::size_t t = bounds[k]; t < bounds[k + 1]; ++t) {
      c += 1;
      if (!seen[map[t] / 64]) {
        seen[map[t] / 64] = 1;
        c += line_weight;
      }
    }
    costs.push_back(c);
  }
  return costs;
}

//! The reference: bisection from a zero lower bound over greedy cuts that mark lines.
double reference_max_cost(const std::vector<std::uint32_t>& map, std::size_t bytes,
                          std::size_t pieces, std::size_t g) {
  const std::size_t n = map.size();
  auto greedy = [&](double cap) {
    std::vector<std::size_t> b{0};
    std::vector<char> seen((bytes + 63) / 64, 0);
    double sum = 0;
    auto unit = [&](std::size_t u) {
      double c = 0;
      for (std::size_t t = u; t < std::min(n, u + g); ++t) {
        c += 1;
        if (!seen[map[t] / 64]) {
          seen[map[t] / 64] = 1;
          c += 5;
        }
      }
      return c;
    };
    for (std::size_t u = 0; u < n; u += g) {
      const double c = unit(u);
      if (sum > 0 && sum + c > cap) {
        b.push_back(u);
        std::fill(seen.begin(), seen.end(), 0);
        sum = unit(u);
      } else {
        sum += c;
      }
    }
    b.push_back(n);
    return b;
  };
  double lo = 0, hi = 1e12;
  while (hi - lo > 1) {
    const double mid = (lo + hi) / 2;
    (greedy(mid).size() <= pieces + 1 ? hi : lo) = mid;
  }
  const std::vector<double> costs = piece_costs(map, bytes, greedy(hi));
  return *std::max_element(costs.begin(), costs.end());
}

}  // namespace

TEST_CASE("equal-cost pieces: valid bounds whose largest piece costs what the reference's does") {
  for (const auto& [w, h, radii, angles] :
       {std::tuple{512, 512, 64, 256}, std::tuple{640, 480, 129, 511}}) {
    const std::vector<std::uint32_t> map = polar_map(w, h, radii, angles);
    const std::size_t bytes = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    const equal_cost_pieces cutter(map, bytes);
    for (const std::size_t g : {std::size_t{32}, std::size_t{256}})
      for (const std::size_t pieces : {std::size_t{2}, std::size_t{5}, std::size_t{15}}) {
        CAPTURE(radii);
        CAPTURE(g);
        CAPTURE(pieces);
        const std::vector<std::size_t> b = cutter.bounds(pieces, g);
        REQUIRE(b.size() == pieces + 1);
        CHECK(b.front() == 0);
        CHECK(b.back() == map.size());
        for (std::size_t k = 1; k < b.size(); ++k) {
          CHECK(b[k] > b[k - 1]);
          if (k + 1 < b.size()) CHECK(b[k] % g == 0);
        }
        const std::vector<double> costs = piece_costs(map, bytes, b);
        const double largest = *std::max_element(costs.begin(), costs.end());
        CHECK(std::abs(largest - reference_max_cost(map, bytes, pieces, g)) < 1.0 + 1e-9);
        // And far better than pieces of equal size (the outer rings read many more lines).
        std::vector<std::size_t> equal(pieces + 1);
        const std::size_t units = (map.size() + g - 1) / g;
        for (std::size_t k = 0; k <= pieces; ++k)
          equal[k] = std::min(map.size(), units * k / pieces * g);
        const std::vector<double> equal_costs = piece_costs(map, bytes, equal);
        CHECK(largest <= *std::max_element(equal_costs.begin(), equal_costs.end()));
      }
  }
  const std::vector<std::uint32_t> tiny = polar_map(64, 64, 2, 16);
  CHECK(equal_cost_pieces(tiny, 64 * 64).bounds(5, 32).empty());  // one unit of 32 for 5 pieces
}
