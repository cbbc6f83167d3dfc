// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "model/mc_tables.hpp"

#include <stdexcept>
#include <vector>

namespace microsched::model_kernels {

namespace {

// The six faces, corners in cyclic order (z=0, z=1, y=0, x=1, y=1, x=0).
// The two corners of each of the 12 edges (the CUDA samples' numbering).
constexpr std::uint8_t edge_corners[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                              {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
constexpr std::uint8_t faces[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                      {1, 2, 6, 5}, {3, 2, 6, 7}, {0, 3, 7, 4}};

int edge_between(int a, int b) {
  for (int e = 0; e < 12; ++e) {
    const auto& c = edge_corners[e];
    if ((c[0] == a && c[1] == b) || (c[0] == b && c[1] == a)) return e;
  }
  throw std::logic_error("marching cubes: corners share no edge");
}

mc_tables build() {
  mc_tables t;
  for (int cube = 0; cube < 256; ++cube) {
    const auto inside = [&](int corner) { return ((cube >> corner) & 1) != 0; };
    // partner[e] holds the crossing edges joined to edge e, one per face it lies on
    std::vector<std::vector<int>> partner(12);
    for (const auto& f : faces) {
      int edges[4];
      bool cross[4];
      int crossings = 0;
      for (int k = 0; k < 4; ++k) {
        edges[k] = edge_between(f[k], f[(k + 1) % 4]);
        cross[k] = inside(f[k]) != inside(f[(k + 1) % 4]);
        crossings += cross[k];
      }
      const auto join = [&](int a, int b) {
        partner[static_cast<std::size_t>(a)].push_back(b);
        partner[static_cast<std::size_t>(b)].push_back(a);
      };
      if (crossings == 2) {
        int a = -1;
        for (int k = 0; k < 4; ++k)
          if (cross[k]) a < 0 ? (void)(a = edges[k]) : join(a, edges[k]);
      } else if (crossings == 4) {  // cut off each inside corner: join its two edges
        for (int k = 0; k < 4; ++k)
          if (inside(f[k])) join(edges[(k + 3) % 4], edges[k]);
      }
    }
    std::vector<bool> used(12, false);
    int n = 0;
    for (int start = 0; start < 12; ++start) {
      if (partner[static_cast<std::size_t>(start)].empty() || used[static_cast<std::size_t>(start)])
        continue;
      std::vector<int> loop{start};  // walk the loop of crossing edges
      used[static_cast<std::size_t>(start)] = true;
      int prev = -1, cur = start;
      for (;;) {
        const auto& p = partner[static_cast<std::size_t>(cur)];
        const int next = p[0] != prev ? p[0] : p[1];
        if (next == start) break;
        prev = cur;
        cur = next;
        used[static_cast<std::size_t>(cur)] = true;
        loop.push_back(cur);
      }
      for (std::size_t k = 1; k + 1 < loop.size(); ++k) {  // fan triangulation
        if (n + 3 > 15) throw std::logic_error("marching cubes: a case needs > 15 vertices");
        auto& row = t.triangles[static_cast<std::size_t>(cube)];
        row[static_cast<std::size_t>(n++)] = static_cast<std::int8_t>(loop[0]);
        row[static_cast<std::size_t>(n++)] = static_cast<std::int8_t>(loop[k]);
        row[static_cast<std::size_t>(n++)] = static_cast<std::int8_t>(loop[k + 1]);
      }
    }
    for (int k = n; k < 16; ++k)
      t.triangles[static_cast<std::size_t>(cube)][static_cast<std::size_t>(k)] = -1;
    t.vertex_count[static_cast<std::size_t>(cube)] = static_cast<std::uint8_t>(n);
  }
  return t;
}

}  // namespace

const mc_tables& marching_cubes_tables() {
  static const mc_tables tables = build();
  return tables;
}

}  // namespace microsched::model_kernels
