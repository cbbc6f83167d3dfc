// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one registry on the host: every area's workloads with their options, tunables, traits and
// bad values, and the sweep's dry run over them (no GPU: nothing here touches the device).
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "microsched/error.hpp"
#include "sweep/cli.hpp"
#include "workload.hpp"

using namespace microsched;
using namespace microsched::workloads;

// example-begin registry-use
#include "workload.hpp"

//! DGI's speedup over the original kernel on lin2018's micro-benchmark (4 paths), through the
//! one workload interface every area registers under: build, set the tunables, check against
//! the reference, time.
double dgi_speedup() {
  using namespace microsched::workloads;
  auto w = make_workload("micro-branch", {{"paths", "4"}, {"n", "1048576"}});
  w->set_tunables({{"method", "dgi"}, {"neighbouring", "16"}});
  if (!w->verify_scheduled({}).passed) throw std::runtime_error("DGI differs from the original");
  const microsched::timing_options timing{2, 7};
  return w->time_vanilla(timing).median_ms / w->time_scheduled({}, timing).median_ms;
}
// example-end registry-use

namespace {

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string> names_of(const std::vector<parameter>& ps) {
  std::vector<std::string> names;
  for (const auto& p : ps) names.push_back(p.name);
  return names;
}

//! The message validate_workload_options throws for these options, or "" when it accepts them.
std::string refusal(const std::string& workload, const options_map& options) {
  try {
    validate_workload_options(workload, options);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

struct dry_run {
  int rc;
  std::string out, err;
};

dry_run sweep_dry_run(std::vector<std::string> args) {
  std::ostringstream out, err;
  sweep::cli_environment env;
  env.factory = sweep::registry_factory();
  env.workload_names = [] { return workload_names(); };
  env.gpu_name = []() -> std::string { throw no_device_error("not looked for in this test"); };
  env.out = &out;
  env.err = &err;
  env.progress = nullptr;
  args.push_back("--dry-run");
  const int rc = sweep::sweep_main(args, env);
  return {rc, out.str(), err.str()};
}

}  // namespace

TEST_CASE("the registry holds every area's workloads, each with its tunables and references") {
  const auto names = workload_names();
  for (const char* name :
       {"julia", "montecarlo", "collatz", "walk", "montecarlo-branch", "raycast", "micro-branch",
        "chi-square", "model-tree", "gafort", "unwrap", "blackscholes", "carried"}) {
    CHECK_MESSAGE(has(names, name), name);
  }
  CHECK(workload_tunables("julia").empty());
  CHECK(traits_of("julia").takes_schedule);
  CHECK(traits_of("julia").baselines.floor == "floor");

  const auto raycast = names_of(workload_tunables("raycast"));
  CHECK(raycast == std::vector<std::string>{"contexts", "switch-every"});
  CHECK(has(names_of(workload_parameters("raycast")), "window"));
  CHECK(traits_of("raycast").takes_schedule);
  CHECK(traits_of("raycast").baselines.floor.empty());
  CHECK_FALSE(traits_of("raycast").baselines.missing.empty());
  CHECK(traits_of("montecarlo-branch").baselines.floor == "ideal");
  CHECK(traits_of("montecarlo-branch").baselines.persistent == "termination-only driver");

  CHECK(names_of(workload_tunables("micro-branch")) ==
        std::vector<std::string>{"method", "neighbouring"});
  CHECK(has(names_of(workload_parameters("micro-branch")), "block-threads"));
  CHECK_FALSE(traits_of("micro-branch").takes_schedule);
  CHECK(traits_of("micro-branch").baselines.persistent.empty());
  CHECK(traits_of("micro-branch").baselines.floor == "uniform paths");
  CHECK(traits_of("chi-square").baselines.floor.empty());

  const auto gafort = names_of(workload_tunables("gafort"));
  for (const char* t : {"depth", "helpers", "method"}) CHECK_MESSAGE(has(gafort, t), t);
  CHECK(names_of(workload_tunables("carried")) == std::vector<std::string>{"ratio", "helpers"});
  CHECK_FALSE(traits_of("unwrap").takes_schedule);
  CHECK(traits_of("unwrap").baselines.vanilla == "original loop");
  CHECK(traits_of("unwrap").baselines.floor.empty());

  CHECK_THROWS_AS((void)workload_tunables("nope"), std::invalid_argument);
  CHECK_THROWS_AS((void)traits_of("nope"), std::invalid_argument);
}

TEST_CASE("bad options and tunables of the area workloads are refused on the host, named") {
  CHECK(refusal("raycast", {{"contexts", "64"}, {"switch-every", "4"}, {"window", "8"}}).empty());
  CHECK(refusal("raycast", {{"contexts", "48"}}).find("contexts = 48") == 0);
  CHECK(refusal("raycast", {{"switch-every", "0"}}).find("switch-every = 0") == 0);
  CHECK(refusal("raycast", {{"tile", "7x4"}}).find("tile = 7x4") == 0);
  CHECK(refusal("raycast", {{"colour", "red"}}).find("unknown option 'colour'") !=
        std::string::npos);
  CHECK(refusal("montecarlo-branch", {{"contexts", "8"}}).find("contexts = 8") == 0);
  CHECK(refusal("montecarlo-branch", {{"p", "1.5"}}).find("p = 1.5") == 0);
  CHECK(refusal("montecarlo-branch", {{"march-quorum", "1"}}).find("unknown option") !=
        std::string::npos);

  CHECK(refusal("micro-branch", {{"method", "hot"}, {"paths", "2"}}).empty());
  CHECK(refusal("micro-branch", {{"method", "foo"}}).find("method = foo") == 0);
  CHECK(refusal("micro-branch", {{"neighbouring", "5"}}).find("neighbouring = 5") == 0);
  CHECK(refusal("micro-branch", {{"block-threads", "512"}}).find("block-threads = 512") == 0);
  CHECK(refusal("micro-branch", {{"paths", "3"}}).find("paths = 3") == 0);
  CHECK(refusal("model-tree", {{"method", "hot"}}).find("method = hot") == 0);
  CHECK(refusal("chi-square", {{"method", "hot16"}}).empty());

  CHECK(refusal("gafort", {{"depth", "3"}, {"helpers", "4"}, {"method", "auto"}}).empty());
  CHECK(refusal("gafort", {{"depth", "0"}}).find("depth = 0") == 0);
  CHECK(refusal("gafort", {{"helpers", "300"}}).find("helpers = 300") == 0);
  CHECK(refusal("unwrap", {{"method", "job-swapping"}}).empty());
  CHECK(refusal("unwrap", {{"method", "lam+redirection"}}).find("method = lam+redirection") == 0);
  CHECK(refusal("blackscholes", {{"control", "fixed"}}).find("unknown option 'control'") !=
        std::string::npos);
  CHECK(refusal("carried", {{"ratio", "1.5"}}).find("ratio = 1.5") == 0);
  CHECK(refusal("carried", {{"depth", "2"}}).find("unknown option 'depth'") != std::string::npos);
}

TEST_CASE("the sweep plans every area's parameters, and refuses bad ones before the GPU") {
  auto r = sweep_dry_run({"raycast", "contexts=64,128", "switch-every=1,4",
                          "strategy=private_pools,hybrid", "window=8,16"});
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("2 scenario(s) x 8 setting(s) = 16 points") != std::string::npos);
  r = sweep_dry_run({"micro-branch", "paths=4", "method=original,dgi", "neighbouring=4,16,64",
                     "block-threads=256,1024"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("2 scenario(s) x 6 setting(s) = 12 points") != std::string::npos);
  r = sweep_dry_run({"gafort", "depth=1:3", "helpers=1,2,4", "method=auto"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("1 scenario(s) x 9 setting(s) = 9 points") != std::string::npos);
  r = sweep_dry_run({"carried", "ratio=0.3:0.7:+0.2", "helpers=2,7"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("= 6 points") != std::string::npos);

  for (const auto& [args, text] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"raycast", "contexts=64,48"}, "contexts = 48"},
           {{"montecarlo-branch", "switch-every=0"}, "switch-every = 0"},
           {{"micro-branch", "neighbouring=8"}, "neighbouring = 8"},
           {{"micro-branch", "chunk=32"}, "the schedule does not apply"},
           {{"gafort", "depth=0:2"}, "depth = 0"},
           {{"unwrap", "helpers=1", "method=swap"}, "method = swap"},
           {{"carried", "ratio=2"}, "ratio = 2"}}) {
    r = sweep_dry_run(args);
    CHECK_MESSAGE(r.rc == 2, args.front());
    CHECK_MESSAGE(r.err.find(text) != std::string::npos, r.err);
  }
}
