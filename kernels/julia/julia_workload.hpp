// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file julia_workload.hpp
//! The Julia fractal as a registered workload (frey2012 §5.2).

#include <memory>
#include <string>

#include "workload.hpp"

namespace microsched::workloads {

struct julia_settings {
  int width = 2048;
  int height = 2048;
  bool double_precision = false;
  std::uint32_t crunch = 4096;
  double offset = 0;
  std::string view = "islands";  //!< a named view of julia_scenes.hpp: its c and zoom target
  double cx = -0.54;             //!< c: the view's, or the `c` option's
  double cy = 0.60;
  bool custom_c = false;  //!< c came from the `c` option, not from the view
};

[[nodiscard]] std::vector<parameter> julia_parameters();
[[nodiscard]] julia_settings parse_julia_settings(const options_map& options);

//! Julia workload with access to its last output (iterations per pixel) for images.
class julia_workload_base : public workload {
 public:
  [[nodiscard]] virtual const julia_settings& settings() const = 0;
  //! Runs microsched once and returns iterations per pixel, row-major.
  [[nodiscard]] virtual std::vector<std::uint32_t> render_scheduled(
      const schedule_arguments& args) = 0;
};

[[nodiscard]] std::unique_ptr<julia_workload_base> make_julia_workload(
    const julia_settings& settings);

//! Iterations per pixel on the host (row-major), in the kernels' arithmetic: equal to the
//! kernels' counts at offset 0 (julia_escape_time), the task lengths elsewhere.
[[nodiscard]] std::vector<std::uint32_t> julia_task_lengths(const julia_settings& settings);

}  // namespace microsched::workloads
