#include <stdexcept>

#include "collatz/collatz_workload.hpp"
#include "julia/julia_workload.hpp"
#include "montecarlo/montecarlo_workload.hpp"
#include "workload.hpp"

namespace microsched::workloads {

std::vector<std::string> workload_names() {
  return {"julia", "montecarlo", "collatz"};
}

std::vector<parameter> workload_parameters(const std::string& name) {
  if (name == "julia") return julia_parameters();
  if (name == "montecarlo") return montecarlo_parameters();
  if (name == "collatz") return collatz_parameters();
  throw std::invalid_argument("workload '" + name + "': expected julia, montecarlo or collatz");
}

std::unique_ptr<workload> make_workload(const std::string& name, const options_map& options) {
  if (name == "julia") return make_julia_workload(parse_julia_settings(options));
  if (name == "montecarlo") return make_montecarlo_workload(parse_montecarlo_settings(options));
  if (name == "collatz") return make_collatz_workload(parse_collatz_settings(options));
  throw std::invalid_argument("workload '" + name + "': expected julia, montecarlo or collatz");
}

}  // namespace microsched::workloads
