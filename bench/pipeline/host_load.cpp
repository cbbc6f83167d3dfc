// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// host_load: a reproducible noisy neighbour for the pipeline benchmarks. Runs N threads that
// either spin on arithmetic (cpu: they take cores from the pipeline's main thread and helpers)
// or stream-copy private buffers (mem: they take host DRAM bandwidth from the helpers' gathers
// and from the GPU's DMA), until the given time has passed or the process is killed.
// The pipeline promises never to be much slower than the original loop; a host this busy is
// where that promise is hardest to keep, so the bench can be run under it on purpose: `host_load
// --mode cpu --threads 16 --seconds 120 & bench_pipeline ...`.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> stop{false};
std::atomic<std::uint64_t> sink{0};

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "host_load: occupy host cores (cpu) or host memory bandwidth (mem) while a benchmark runs"};
  std::string mode = "cpu";
  int threads = 0;
  double seconds = 60;
  int megabytes = 64;
  app.add_option("--mode", mode, "cpu: spinning threads; mem: threads that copy private buffers")
      ->check(CLI::IsMember({"cpu", "mem"}));
  app.add_option("--threads", threads, "number of threads (default: all hardware threads)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--seconds", seconds, "stop after this long (the bench script kills it earlier)")
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--megabytes", megabytes,
                 "mem: size of each thread's two buffers, in MB (past the L3)")
      ->check(CLI::Range(1, 4096));
  CLI11_PARSE(app, argc, argv);
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::fprintf(stderr, "host_load: %d %s thread(s) for %.1f s\n", threads, mode.c_str(), seconds);
  try {
    std::vector<std::thread> pool;
    const std::size_t bytes = static_cast<std::size_t>(megabytes) << 20;
    for (int t = 0; t < threads; ++t) {
      if (mode == "cpu")
        pool.emplace_back(spin);
      else
        pool.emplace_back(stream, bytes);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& t : pool) t.join();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "host_load: %s\n", e.what());
    return 1;
  }
  return 0;
}
