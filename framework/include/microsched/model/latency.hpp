#pragma once
//! @file latency.hpp
//! Region latencies: measured on the current GPU by a probe_mode::time launch (cycles per
//! execution of each region, clock64 around every execution) and cached per GPU in a small text
//! file, so a program measures once per GPU and kernel. Measure on an order whose warps do not
//! diverge (the items sorted by their BBVs): then a lane's cycles in a region are its warp's,
//! with no wait for other paths. The values include the issue contention of a full GPU; only
//! their ratios matter to the model.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace microsched::model {

//! Cycles per execution of every region: cycles[r] / hits[r]; 0 for a region never executed.
//! Throws std::invalid_argument on mismatched sizes or an empty input.
[[nodiscard]] std::vector<double> latencies_from_sums(std::span<const unsigned long long> cycles,
                                                      std::span<const unsigned long long> hits);

//! One file per GPU in a folder: `<gpu name with [^A-Za-z0-9] as '_'>.latency`, one line per
//! kernel, `<kernel key> <regions> <latency>...`. Writes replace the whole file atomically.
class latency_cache {
 public:
  explicit latency_cache(std::filesystem::path folder) : folder_(std::move(folder)) {}

  //! The file that holds `gpu_name`'s latencies.
  [[nodiscard]] std::filesystem::path file_for(std::string_view gpu_name) const;

  //! The latencies stored for (gpu, kernel), or nothing when absent or unreadable.
  [[nodiscard]] std::optional<std::vector<double>> load(std::string_view gpu_name,
                                                        std::string_view kernel_key) const;

  //! Stores (replaces) the latencies of (gpu, kernel); keeps the other kernels' lines. Throws
  //! std::invalid_argument for a key with white space or empty latencies, std::runtime_error
  //! when the file cannot be written.
  void store(std::string_view gpu_name, std::string_view kernel_key,
             std::span<const double> latency) const;

 private:
  std::filesystem::path folder_;
};

}  // namespace microsched::model
