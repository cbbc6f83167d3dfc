// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MPI ranks claiming from one counter in an MPI window (no GPU): every range, from 0 tasks to
// beyond 2^32, is handed out exactly once over the ranks, in contiguous and interleaved layouts.
// Run under mpiexec with 2 or more ranks; rank 0 prints the result and every rank exits with it.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "microsched/multi_gpu/claim_layout.hpp"
#include "microsched/multi_gpu/claim_plan.hpp"
#include "microsched/multi_gpu/mpi_claim_counter.hpp"

using namespace microsched;
using namespace microsched::multi_gpu;

namespace {

//! Claims [0, count) over every rank; on rank 0, whether the claims tile the units of the layout
//! and hold `count` tasks together.
bool claims_tile(mpi_claim_counter& counter, int ranks, task_id count, const claim_settings& s) {
  counter.reset();
  std::vector<task_id> mine;  // (first, count) pairs
  const claim_layout layout = claims_layout(count, ranks, s);
  const task_id units = layout.units();
  const task_id smallest = smallest_units(layout, ranks, s);
  for (;;) {
    const claimed_range r = take_claim(counter, units, ranks, smallest, s);
    if (r.empty()) break;
    mine.push_back(r.first);
    mine.push_back(r.count);
  }
  const int size = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(ranks));
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<std::size_t>(ranks), 0);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + sizes[r - 1];
  std::vector<task_id> all(static_cast<std::size_t>(offsets.back() + sizes.back()));
  MPI_Gatherv(mine.data(), size, MPI_UINT64_T, all.data(), sizes.data(), offsets.data(),
              MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (counter.rank() != 0) return true;
  std::vector<claimed_range> ranges;
  for (std::size_t i = 0; i < all.size(); i += 2) ranges.push_back({all[i], all[i + 1]});
  std::sort(ranges.begin(), ranges.end(),
            [](const claimed_range& a, const claimed_range& b) { return a.first < b.first; });
  task_id covered = 0;
  task_id tasks = 0;
  for (const claimed_range& r : ranges) {
    if (r.empty() || r.first != covered) return false;
    covered = r.end();
    tasks += layout.tasks(r);
  }
  return covered == units && tasks == count;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int passed = 0;
  int failed = 0;
  {
    mpi_claim_counter counter(MPI_COMM_WORLD);
    claim_settings small;
    small.min_tasks = 1;
    claim_settings contiguous;
    contiguous.interleave = false;
    contiguous.share_divisor = 2;
    contiguous.granules = 64;
    for (const task_id count :
         {task_id{0}, task_id{1}, task_id{3}, (task_id{1} << 20) + 7, (task_id{1} << 40) + 5}) {
      for (const claim_settings& s : {claim_settings{}, small, contiguous}) {
        const bool ok = claims_tile(counter, ranks, count, s);
        if (rank == 0) {
          (ok ? passed : failed) += 1;
          if (!ok)
            std::printf("FAILED: %llu tasks over %d ranks\n", (unsigned long long)count, ranks);
        }
      }
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("test_mpi_claims: %d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
