// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The library's registered workloads as a sweep factory. Compiled only where the
// microsched_workloads library exists (the sweep program and its device test).
#include "sweep/engine.hpp"

namespace microsched::sweep {

workload_factory registry_factory() {
  workload_factory f;
  f.parameters = [](const std::string& name) { return workloads::workload_parameters(name); };
  f.make = [](const std::string& name, const options_map& options) {
    return workloads::make_workload(name, options);
  };
  f.tunables = [](const std::string& name) { return workloads::workload_tunables(name); };
  f.traits = [](const std::string& name) { return workloads::traits_of(name); };
  f.validate = [](const std::string& name, const options_map& options) {
    workloads::validate_workload_options(name, options);
  };
  return f;
}

}  // namespace microsched::sweep
