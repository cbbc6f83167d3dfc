#!/usr/bin/env bash
# Copies the switching binaries of a local build (B, default build-switching) and the shared
# libraries the device may lack into build-devbin/ (ignored by git), for gpu_prebuilt.sh: name
# build-devbin in the device call's carry. They travel as one gzip archive, build-devbin/devbin.tgz
# (65 MB of binaries since the ring order became a template parameter, over the 64 MiB a device
# call carries; 17 MB packed), which gpu_prebuilt.sh and gpu_tail.sh unpack in place.
set -eu
B=${B:-build-switching}
D=build-devbin
rm -rf "$D"
mkdir -p "$D/lib"
cp "$B/samples/switching/raycast" "$B/samples/switching/montecarlo_branch" \
  "$B/bench/switching/bench_switching" "$D/"
cp "$B/tests/switching/test_switching_vote" "$B/tests/switching/test_switching_device" \
  "$B/tests/switching/test_switching_porting_guide" "$D/"
for lib in $(ldd "$D/raycast" "$D/bench_switching" | awk '/=> \//{print $3}' |
  grep -E 'libbenchmark|libpng|libz\.|libcudart' | sort -u); do
  cp -L "$lib" "$D/lib/"
done
tar czf devbin.tgz -C "$D" .
find "$D" -mindepth 1 -delete
mv devbin.tgz "$D/"
du -sh "$D"
