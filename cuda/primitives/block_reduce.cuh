// Block-wide reduction: shuffles within each warp, one shared slot per warp, then the first warp.
#pragma once

#include "cuda/primitives/warp_reduce.cuh"

namespace shootout::cuda {

// Combines every thread's state; thread 0 holds the result. blockDim.x is a multiple of 32. A second
// call in one kernel needs a __syncthreads() between the two (they share the shared slots).
template <class Acc>
__device__ typename Acc::State block_reduce(typename Acc::State s) {
    __shared__ typename Acc::State warp_states[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    s = warp_reduce<Acc>(s);
    if (lane == 0) warp_states[warp] = s;
    __syncthreads();
    if (warp == 0) s = warp_reduce<Acc>(lane < blockDim.x / 32 ? warp_states[lane] : Acc::zero());
    return s;
}

}  // namespace shootout::cuda
