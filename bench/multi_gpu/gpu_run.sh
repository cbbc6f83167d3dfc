#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The multi-GPU area on a GPU machine with no network: unpacks the carried Open MPI and build
# packages (scripts/mpi-packages), builds this area's targets only, runs the benchmarks (one
# process on 1, 2 and 4 GPUs in each variant, then one MPI rank per GPU), its tests (host, one GPU
# listed three times, every GPU, MPI ranks; the MPI tests again under a plain ctest that sees one
# GPU and none of the MPI environment), and compute-sanitizer over the multi-GPU path. Each step
# is bounded so that the whole run ends within DEADLINE seconds (default 400).
#
#   bench/multi_gpu/gpu_run.sh [DEBS] [quick|full] [VARIANTS]
#     DEBS: the carried .deb folder (.mpi-debs); VARIANTS: multi_gpu_bench --variants
#     (default dynamic,equal). Logs go to $OUT (default ./out), the build to $BUILD
#     (default /tmp/build-multi).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
DEBS=${1:-.mpi-debs}
MODE=${2:-full}
VARIANTS=${3:-dynamic,equal}
OUT=${OUT:-$PWD/out}
BUILD=${BUILD:-/tmp/build-multi}
DEADLINE=${DEADLINE:-400}
mkdir -p "$OUT"
left() { echo $((DEADLINE - SECONDS)); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
  echo "== image: $(grep PRETTY /etc/os-release)"
  nvidia-smi -L
  nvidia-smi topo -m 2>/dev/null | head -6
} | tee "$OUT/summary.txt"
scripts/mpi-packages unpack "$DEBS" /tmp/multi-mpi || exit 1
# shellcheck disable=SC1090
source <(scripts/mpi-packages env /tmp/multi-mpi)
export OMPI_MCA_btl_vader_single_copy_mechanism=none
areas_off="-DMICROSCHED_WITH_REMAP=OFF -DMICROSCHED_WITH_PIPELINE=OFF -DMICROSCHED_WITH_SWEEP=OFF"
areas_off+=" -DMICROSCHED_WITH_SWITCHING=OFF -DMICROSCHED_WITH_MODEL=OFF"
# shellcheck disable=SC2086
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 $areas_off >"$OUT/build.log" 2>&1 \
  || { tail -30 "$OUT/build.log"; exit 1; }
targets="test_claim_plan test_multi_gpu_one_gpu test_multi_gpu test_mpi_claims test_mpi_multi_gpu"
targets+=" multi_gpu_bench mpi_multi_gpu_bench"
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"$(nproc)" --target $targets >>"$OUT/build.log" 2>&1 \
  || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
echo "== built at ${SECONDS} s" | tee -a "$OUT/summary.txt"
gpus=$(nvidia-smi -L | wc -l)
if [ "$MODE" = quick ]; then
  sizes=(--julia-side 8192 --walks 67108864 --skewed 16777216 --warmup 3 --repetitions 3)
else
  sizes=(--warmup 6 --repetitions 7)
fi
list=1
[ "$gpus" -ge 2 ] && list=1,2
[ "$gpus" -ge 4 ] && list=1,2,4
timeout "$(($(left) - 150))" "$BUILD/bench/multi_gpu/multi_gpu_bench" --gpus "$list" \
  --variants "$VARIANTS" "${sizes[@]}" >"$OUT/bench.log" 2>&1
echo "== one process: exit $? at ${SECONDS} s" | tee -a "$OUT/summary.txt"
ranks=${list//,/ }
[ "$gpus" -eq 1 ] && ranks="1 2"  # two ranks share the one GPU: the MPI path, not its speed
for n in $ranks; do
  [ "$(left)" -gt 100 ] || { echo "== MPI $n ranks: no time left" | tee -a "$OUT/summary.txt"; continue; }
  timeout "$(( $(left) - 90 < 90 ? $(left) - 90 : 90 ))" mpirun -np "$n" --oversubscribe --bind-to none \
    "$BUILD/bench/multi_gpu/mpi_multi_gpu_bench" "${sizes[@]}" >>"$OUT/mpi.log" 2>&1
  echo "== MPI $n ranks: exit $? at ${SECONDS} s" | tee -a "$OUT/summary.txt"
done
(cd "$BUILD" && timeout "$(($(left) - 45))" ctest -R "claim_plan|multi_gpu|mpi" --output-on-failure \
  >"$OUT/tests.log" 2>&1)
echo "== ctest: exit $? at ${SECONDS} s" | tee -a "$OUT/summary.txt"
# A plain ctest on a machine of one GPU, without the MPI environment of this shell; verbose, so
# that a skipped test says why.
ctest=$(command -v ctest)
(cd "$BUILD" && timeout "$(($(left) - 30))" env -i PATH=/usr/local/cuda/bin:/usr/bin:/bin \
  HOME="$HOME" CUDA_VISIBLE_DEVICES=0 "$ctest" -L mpi -V >>"$OUT/tests.log" 2>&1)
echo "== plain ctest -L mpi on one GPU: exit $? at ${SECONDS} s" | tee -a "$OUT/summary.txt"
if [ "$gpus" -ge 2 ] && [ "$(left)" -gt 20 ]; then
  timeout "$(($(left) - 5))" compute-sanitizer --tool memcheck "$BUILD/tests/multi_gpu/test_multi_gpu" \
    -tc="julia*" >>"$OUT/tests.log" 2>&1
  echo "== compute-sanitizer memcheck, every GPU: exit $? at ${SECONDS} s" | tee -a "$OUT/summary.txt"
fi
{
  grep -E "Test #|tests passed|SKIPPED" "$OUT/tests.log" | head -20
  grep -E "ERROR SUMMARY" "$OUT/tests.log"
  grep -E "^\||claim cost|baseline" "$OUT/bench.log"
  grep -E "ranks (dynamic|equal)|claim cost" "$OUT/mpi.log"
} >>"$OUT/summary.txt" 2>/dev/null
cat "$OUT/summary.txt"
