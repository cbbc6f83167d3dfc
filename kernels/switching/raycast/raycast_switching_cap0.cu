// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ray caster's switching kernels with register cap 0 (min blocks/SM; 0 = none).
#include "raycast/raycast_switching_impl.cuh"

template struct microsched::switching_workloads::detail::raycast_switching<0>;
