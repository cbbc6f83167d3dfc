// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "microsched/pipeline/key_function.hpp"

#include <algorithm>

#include "microsched/error.hpp"
#include "microsched/pipeline/regroup.hpp"

namespace microsched::pipeline {

key_function key_function::per_element(element_fn f) {
  if (!f) throw_invalid("element_fn", "empty", "a key function must be callable");
  return key_function([f = std::move(f)](std::size_t begin, std::span<std::uint32_t> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = f(begin + i);
  });
}

key_function key_function::per_range(range_fn f) {
  if (!f) throw_invalid("range_fn", "empty", "a key function must be callable");
  return key_function(std::move(f));
}

key_function key_function::array(std::span<const std::uint32_t> keys) {
  return key_function([keys](std::size_t begin, std::span<std::uint32_t> out) {
    if (begin > keys.size() || out.size() > keys.size() - begin)
      throw_invalid("end", begin + out.size(), "key range outside the key array");
    std::copy_n(keys.begin() + static_cast<std::ptrdiff_t>(begin), out.size(), out.begin());
  });
}

void key_function::fill(std::size_t begin, std::span<std::uint32_t> out) const {
  if (!range_) throw_invalid("key_function", "empty", "no function to compute keys with");
  range_(begin, out);
}

std::vector<std::uint32_t> key_function::keys(std::size_t begin, std::size_t end) const {
  if (begin > end) throw_invalid("end", end, "must be >= begin");
  std::vector<std::uint32_t> k(end - begin);
  fill(begin, k);
  return k;
}

std::size_t lam_source(const key_function& keys, std::size_t begin, std::size_t end,
                       const lam_arguments& args, lam_workspace& workspace,
                       std::span<index_t> source) {
  if (begin > end) throw_invalid("end", end, "must be >= begin");
  if (source.size() != end - begin)
    throw_invalid("source.size()", source.size(), "must be end - begin");
  workspace.keys.resize(end - begin);
  keys.fill(begin, workspace.keys);
  return lam_source(workspace.keys, args, workspace, source, static_cast<index_t>(begin));
}

std::vector<index_t> regroup(const key_function& keys, std::size_t begin, std::size_t end,
                             int warp) {
  const std::vector<std::uint32_t> k = keys.keys(begin, end);
  return regroup(std::span<const std::uint32_t>(k), warp);
}

std::vector<index_t> job_swap(const key_function& refs, std::size_t begin, std::size_t end,
                              const job_swap_arguments& args) {
  const std::vector<std::uint32_t> r = refs.keys(begin, end);
  return job_swap(std::span<const index_t>(r), args);
}

}  // namespace microsched::pipeline
