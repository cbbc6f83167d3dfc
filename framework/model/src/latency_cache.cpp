// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cctype>
#include <fstream>
#include <sstream>

#include "microsched/error.hpp"
#include "microsched/io/atomic_file.hpp"
#include "microsched/model/latency.hpp"

namespace microsched::model {

std::filesystem::path latency_cache::file_for(std::string_view gpu_name) const {
  std::string name(gpu_name.empty() ? "unknown_gpu" : gpu_name);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return folder_ / (name + ".latency");
}

namespace {
bool valid_key(std::string_view key) {
  if (key.empty()) return false;
  for (const char c : key)
    if (std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}
}  // namespace

std::optional<std::vector<double>> latency_cache::load(std::string_view gpu_name,
                                                       std::string_view kernel_key) const {
  std::ifstream in(file_for(gpu_name));
  std::string line;
  while (in && std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    std::size_t regions = 0;
    if (!(fields >> key >> regions) || key != kernel_key || regions == 0) continue;
    std::vector<double> lat(regions);
    for (double& v : lat)
      if (!(fields >> v)) return std::nullopt;
    return lat;
  }
  return std::nullopt;
}

void latency_cache::store(std::string_view gpu_name, std::string_view kernel_key,
                          std::span<const double> latency) const {
  if (!valid_key(kernel_key))
    throw std::invalid_argument("kernel key '" + std::string(kernel_key) +
                                "': must be non-empty without white space");
  if (latency.empty()) throw_invalid("latency size", latency.size(), "need at least one region");
  ensure_writable_folder(folder_);
  std::ostringstream out;
  std::ifstream in(file_for(gpu_name));
  std::string line;
  while (in && std::getline(in, line)) {  // keep the other kernels' lines
    std::istringstream fields(line);
    std::string key;
    if ((fields >> key) && key != kernel_key) out << line << '\n';
  }
  out.precision(17);
  out << kernel_key << ' ' << latency.size();
  for (const double v : latency) out << ' ' << v;
  out << '\n';
  write_file_atomically(file_for(gpu_name), out.str());
}

}  // namespace microsched::model
