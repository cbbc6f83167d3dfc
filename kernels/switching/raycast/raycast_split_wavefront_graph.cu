// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The split wavefront's device-side round loop (raycast_split_wavefront.cuh): the graph of
// round 0 and a WHILE conditional node over one march and one shade kernel, built once per set
// of parameters and reused; the runs that launch it and the check after them.
#include <cstring>

#include "microsched/error.hpp"
#include "raycast/raycast_split_wavefront.cuh"

namespace microsched::switching_workloads::detail {

namespace {

namespace word = split_words;

//! Adds a kernel node of `kernel` on `blocks` blocks after `after` (none when null); the node
//! keeps its own copy of `p`.
cudaError_t add_kernel(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* after,
                       const void* kernel, unsigned blocks, const split_params& p) {
  cudaGraphNodeParams n{};
  n.type = cudaGraphNodeTypeKernel;
  n.kernel.func = const_cast<void*>(kernel);
  n.kernel.gridDim = dim3(blocks);
  n.kernel.blockDim = dim3(raycast_split_wavefront::block_threads);
  void* args[] = {const_cast<split_params*>(&p)};
  n.kernel.kernelParams = args;
  return cudaGraphAddNode(node, graph, after, nullptr, after != nullptr ? 1 : 0, &n);
}

//! Adds a node zeroing `words` 32-bit words at `dst`, a root of the graph.
cudaError_t add_zero(cudaGraphNode_t* node, cudaGraph_t graph, std::uint32_t* dst, int words) {
  cudaGraphNodeParams n{};
  n.type = cudaGraphNodeTypeMemset;
  n.memset.dst = dst;
  n.memset.value = 0;
  n.memset.elementSize = sizeof(std::uint32_t);
  n.memset.width = static_cast<std::size_t>(words);
  n.memset.height = 1;
  return cudaGraphAddNode(node, graph, nullptr, nullptr, 0, &n);
}

//! Adds a WHILE node after `after` whose condition is `h`; `body`: the graph it repeats.
cudaError_t add_while(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* after,
                      cudaGraphConditionalHandle h, cudaGraph_t* body) {
  cudaGraphNodeParams n{};
  n.type = cudaGraphNodeTypeConditional;
  n.conditional.handle = h;
  n.conditional.type = cudaGraphCondTypeWhile;
  n.conditional.size = 1;
  const cudaError_t e = cudaGraphAddNode(node, graph, after, nullptr, 1, &n);
  if (e == cudaSuccess) *body = n.conditional.phGraph_out[0];
  return e;
}

//! The errors of a driver without conditional nodes: the host-batched loop runs instead.
bool lacks_conditional_nodes(cudaError_t e) {
  return e == cudaErrorNotSupported || e == cudaErrorCallRequiresNewerDriver ||
         e == cudaErrorInsufficientDriver;
}

}  // namespace

bool raycast_split_wavefront::build_graph(const split_params& base) {
  // Zero the words, round 0 (begin and march, then shade), then while rays are left: march,
  // shade. The last shade block of each round sets the condition (end_round).
  cudaGraphConditionalHandle handle = 0;
  cudaGraphNode_t zero = nullptr, begin = nullptr, shade = nullptr, loop = nullptr;
  cudaGraphNode_t march_again = nullptr, shade_again = nullptr;
  cudaGraph_t body = nullptr;
  cudaError_t e = cudaGraphCreate(&graph_, 0);
  if (e == cudaSuccess) {
    e = cudaGraphConditionalHandleCreate(&handle, graph_, 0, cudaGraphCondAssignDefault);
  }
  split_params p = base;
  p.condition = handle;
  p.sets_condition = 1;
  if (e == cudaSuccess) e = add_zero(&zero, graph_, words_.data(), word::count);
  if (e == cudaSuccess) e = add_kernel(&begin, graph_, &zero, kernels_.begin, begin_blocks_, p);
  if (e == cudaSuccess) e = add_kernel(&shade, graph_, &begin, kernels_.shade, shade_blocks_, p);
  if (e == cudaSuccess) e = add_while(&loop, graph_, &shade, handle, &body);
  if (e == cudaSuccess) {
    e = add_kernel(&march_again, body, nullptr, kernels_.march, march_blocks_, p);
  }
  if (e == cudaSuccess) {
    e = add_kernel(&shade_again, body, &march_again, kernels_.shade, shade_blocks_, p);
  }
  if (e == cudaSuccess) e = cudaGraphInstantiate(&exec_, graph_, 0);
  if (e == cudaSuccess) {
    std::memcpy(&graph_params_, &base, sizeof base);
    return true;
  }
  release_graph();
  // Driver without conditional nodes: fall back to the host-batched loop; anything else throws.
  if (!lacks_conditional_nodes(e)) MICROSCHED_CUDA_TRY(e);
  static_cast<void>(cudaGetLastError());  // the failed call's error is handled here
  return false;
}

void raycast_split_wavefront::release_graph() {
  if (exec_ != nullptr) MICROSCHED_CUDA_TRY(cudaGraphExecDestroy(exec_));
  exec_ = nullptr;
  if (graph_ != nullptr) MICROSCHED_CUDA_TRY(cudaGraphDestroy(graph_));
  graph_ = nullptr;
}

raycast_split_wavefront::~raycast_split_wavefront() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
}

void raycast_split_wavefront::run(const kernels::raycast::raycast_program& program,
                                  std::uint32_t* counts, cudaStream_t stream) {
  finish();
  const split_params p = params(program, counts);
  // The graph's kernel nodes hold the parameters: other ones rebuild it (compared bytewise, so
  // a copy that differs only in padding rebuilds too and never runs stale).
  if (!graph_unavailable_ && (exec_ == nullptr || std::memcmp(&p, &graph_params_, sizeof p) != 0)) {
    release_graph();
    graph_unavailable_ = !build_graph(p);
  }
  if (exec_ == nullptr) {
    run_batched(p, stream);
    return;
  }
  MICROSCHED_CUDA_TRY(cudaGraphLaunch(exec_, stream));
  static_assert(word::left == word::round + 1, "the status copy reads the round, then rays left");
  MICROSCHED_CUDA_TRY(cudaMemcpyAsync(status_.data(), words_.data() + word::round,
                                      2 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  MICROSCHED_CUDA_TRY(cudaEventRecord(batch_done_[0].get(), stream));
  pending_ = true;
}

void raycast_split_wavefront::finish() {
  if (!pending_) return;
  pending_ = false;
  MICROSCHED_CUDA_TRY(cudaEventSynchronize(batch_done_[0].get()));
  rounds_ = static_cast<int>(status_.data()[0]);
  if (status_.data()[1] != 0) throw_runaway(status_.data()[1], rounds_);
}

}  // namespace microsched::switching_workloads::detail
