// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host test: docs/remap.md shows exactly the compiled example code of test_remap_device.cu.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string cut(const std::string& source, const std::string& name) {
  const std::string begin = "// example-begin " + name + "\n";
  const std::string end = "// example-end " + name;
  const auto b = source.find(begin);
  const auto e = source.find(end);
  REQUIRE_MESSAGE(b != std::string::npos, "no marker ", begin);
  REQUIRE(e != std::string::npos);
  return source.substr(b + begin.size(), e - b - begin.size());
}

}  // namespace

TEST_CASE("docs/remap.md snippets match the compiled example") {
  const std::string source = slurp(MICROSCHED_REMAP_EXAMPLE_SOURCE);
  const std::string doc = slurp(MICROSCHED_REMAP_DOC);
  for (const char* name : {"per-element", "original-kernel", "remapped-kernel"}) {
    CAPTURE(name);
    const std::string block =
        "<!-- snippet: " + std::string(name) + " -->\n```cuda\n" + cut(source, name) + "```";
    CHECK_MESSAGE(doc.find(block) != std::string::npos,
                  "docs/remap.md is out of date: paste the example again");
  }
}
