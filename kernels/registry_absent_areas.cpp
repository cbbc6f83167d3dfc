// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The registry's lists of the areas this build leaves out (MICROSCHED_WITH_<AREA>=OFF): empty.
#include "registry_support.hpp"

namespace microsched::workloads::registry {

#ifndef MICROSCHED_REGISTRY_SWITCHING
std::vector<entry> switching_entries() {
  return {};
}
#endif
#ifndef MICROSCHED_REGISTRY_REMAP
std::vector<entry> remap_entries() {
  return {};
}
#endif
#ifndef MICROSCHED_REGISTRY_PIPELINE
std::vector<entry> pipeline_entries() {
  return {};
}
#endif

}  // namespace microsched::workloads::registry
