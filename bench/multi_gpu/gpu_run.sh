#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The multi-GPU area on a GPU machine with no network: unpacks the carried Open MPI and build
# packages (scripts/mpi-packages), builds this area's targets only, runs its tests (host, one GPU
# listed three times, every GPU, MPI ranks), compute-sanitizer over the claim path, then the
# benchmarks: one process on 1, 2 and 4 GPUs, and one MPI rank per GPU.
#
#   bench/multi_gpu/gpu_run.sh [DEBS] [quick|full]   (DEBS: the carried .deb folder, .mpi-debs)
# Logs go to $OUT (default ./out).
set -uo pipefail
cd "$(dirname "$0")/../.."
DEBS=${1:-.mpi-debs}
MODE=${2:-full}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
echo "== image: $(which mpirun || echo no mpirun); $(grep PRETTY /etc/os-release)"
nvidia-smi -L
nvidia-smi topo -m 2>/dev/null | head -8
scripts/mpi-packages unpack "$DEBS" /tmp/multi-mpi && source <(scripts/mpi-packages env /tmp/multi-mpi)
areas_off="-DMICROSCHED_WITH_REMAP=OFF -DMICROSCHED_WITH_PIPELINE=OFF -DMICROSCHED_WITH_SWEEP=OFF"
areas_off+=" -DMICROSCHED_WITH_SWITCHING=OFF -DMICROSCHED_WITH_MODEL=OFF"
# shellcheck disable=SC2086
cmake -S . -B build-multi -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 $areas_off >"$OUT/configure.log" 2>&1 \
  || { tail -30 "$OUT/configure.log"; exit 1; }
start=$SECONDS
targets="test_claim_plan test_multi_gpu_one_gpu test_multi_gpu test_mpi_claims test_mpi_multi_gpu"
targets+=" multi_gpu_bench mpi_multi_gpu_bench"
# shellcheck disable=SC2086
ninja -C build-multi -j"$(nproc)" $targets >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
echo "== built in $((SECONDS - start)) s"
gpus=$(nvidia-smi -L | wc -l)
(cd build-multi && ctest -R "claim_plan|multi_gpu|mpi" --output-on-failure 2>&1 | tail -25)
timeout 150 compute-sanitizer --tool memcheck build-multi/tests/multi_gpu/test_multi_gpu_one_gpu \
  -tc="julia*,zero*,one slot*" 2>&1 | tail -4
if [ "$gpus" -ge 2 ]; then
  timeout 150 compute-sanitizer --tool memcheck build-multi/tests/multi_gpu/test_multi_gpu \
    -tc="julia*" 2>&1 | tail -4
fi
if [ "$MODE" = quick ]; then
  sizes=(--julia-side 8192 --walks 67108864 --skewed 16777216 --warmup 3 --repetitions 3)
else
  sizes=(--warmup 6 --repetitions 7)
fi
list=1
[ "$gpus" -ge 2 ] && list=1,2
[ "$gpus" -ge 4 ] && list=1,2,4
build-multi/bench/multi_gpu/multi_gpu_bench --gpus "$list" "${sizes[@]}" 2>&1 | tee "$OUT/bench.log" | grep -v "^|"
ranks=${list#1,}
[ "$gpus" -eq 1 ] && ranks=2  # two ranks share the one GPU: the MPI path, not its speed
for n in ${ranks//,/ }; do
  mpirun -np "$n" --oversubscribe --bind-to none build-multi/bench/multi_gpu/mpi_multi_gpu_bench \
    "${sizes[@]}" 2>&1 | tee "$OUT/mpi-$n.log" | tail -8
done
grep "^|" "$OUT/bench.log"
