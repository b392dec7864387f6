// Warp-wide reduction by shuffles: no shared memory, no barrier.
#pragma once

#include "gpu/primitives/accumulators.cuh"

namespace shootout::cuda {

// Combines the 32 lanes' states; lane 0 holds the result.
template <class Acc>
__device__ typename Acc::State warp_reduce(typename Acc::State s) {
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset /= 2) s = Acc::combine(s, Acc::shuffle_down(s, offset));
    return s;
}

}  // namespace shootout::cuda
