// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// host_load: a reproducible noisy neighbour for the pipeline benchmarks. Runs N threads that
// either spin on arithmetic (cpu: they take cores from the pipeline's main thread and helpers)
// or stream-copy private buffers (mem: they take host DRAM bandwidth from the helpers' gathers
// and from the GPU's DMA), until the given time has passed or the process is killed.
// The pipeline promises never to be much slower than the original loop; a host this busy is
// where that promise is hardest to keep, so the bench can be run under it on purpose: `host_load
// --mode cpu --threads 16 --seconds 120 & bench_pipeline ...`.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checked_cli.hpp"

namespace {

std::atomic<bool> stop{false};
std::atomic<std::uint64_t> sink{0};
std::mutex failure_mutex;
std::string failure;  //!< the first worker's error; the others stop

void spin() {
  std::uint64_t x = 88172645463325252ull;
  while (!stop.load(std::memory_order_relaxed))
    for (int k = 0; k < 4096; ++k) {  // xorshift: no memory traffic
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
  sink.fetch_add(x, std::memory_order_relaxed);
}

void stream(std::size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  while (!stop.load(std::memory_order_relaxed)) {
    std::memcpy(b.data(), a.data(), bytes);
    std::memcpy(a.data(), b.data(), bytes);
  }
  sink.fetch_add(static_cast<std::uint64_t>(a[bytes / 2]), std::memory_order_relaxed);
}

//! A worker's body: an exception (bad_alloc of a mem thread's buffers) is kept for main to report
//! and stops every worker, instead of escaping the thread and aborting the process.
template <class Work>
void guarded(Work work) {
  try {
    work();
  } catch (const std::exception& e) {
    const std::lock_guard<std::mutex> lock(failure_mutex);
    if (failure.empty()) failure = e.what();
    stop = true;
  }
}

//! The host's memory in MiB (0 when unknown).
std::uint64_t host_megabytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) >> 20
             : 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace microsched;
  CLI::App app{
      "host_load: occupy host cores (cpu) or host memory bandwidth (mem) while a benchmark runs "
      "(no GPU needed).\n"
      "Example: host_load --mode cpu --threads 16 --seconds 120 & bench_pipeline ..."};
  std::string mode = "cpu";
  int threads = 0;
  double seconds = 60;
  int megabytes = 64;
  app.add_option("--mode", mode, "cpu: spinning threads; mem: threads that copy private buffers")
      ->check(CLI::IsMember({"cpu", "mem"}))
      ->capture_default_str();
  programs::add_checked(app, "--threads", threads, "number of threads (0: all hardware threads)", 0,
                        4096);
  programs::add_checked(app, "--seconds", seconds,
                        "stop after this long (the bench script kills it earlier)", 0.1, 86400.0);
  programs::add_checked(app, "--megabytes", megabytes,
                        "mem: size of each thread's two buffers, in MB (past the L3)", 1, 4096);
  MICROSCHED_PARSE_ARGUMENTS(app, argc, argv);

  return programs::run_main("host_load", [&] {
    if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::uint64_t needed = mode == "mem" ? 2ull * static_cast<std::uint64_t>(megabytes) *
                                                     static_cast<std::uint64_t>(threads)
                                               : 0;
    if (const std::uint64_t host = host_megabytes(); host > 0 && needed > host / 2) {
      throw std::invalid_argument("--threads " + std::to_string(threads) + " --megabytes " +
                                  std::to_string(megabytes) + ": the buffers take " +
                                  std::to_string(needed) + " MB, more than half of the host's " +
                                  std::to_string(host) + " MB");
    }
    std::fprintf(stderr, "host_load: %d %s thread(s) for %.1f s\n", threads, mode.c_str(), seconds);
    std::vector<std::thread> pool;
    const auto join_all = [&] {
      stop = true;
      for (auto& t : pool) t.join();
    };
    try {
      const std::size_t bytes = static_cast<std::size_t>(megabytes) << 20;
      for (int t = 0; t < threads; ++t) {
        if (mode == "cpu")
          pool.emplace_back([] { guarded(spin); });
        else
          pool.emplace_back([bytes] { guarded([bytes] { stream(bytes); }); });
      }
    } catch (...) {  // a thread that cannot start: stop and join the others before reporting
      join_all();
      throw;
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!stop.load() && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    join_all();
    if (!failure.empty()) throw std::runtime_error("a worker thread failed: " + failure);
    return 0;
  });
}
