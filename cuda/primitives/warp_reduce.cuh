// Warp-wide reduction by shuffles: no shared memory, no barrier.
#pragma once

#include "cuda/primitives/accumulators.cuh"

namespace shootout::cuda {

// Combines the 32 lanes' states; lane 0 holds the result.
template <class Acc>
__device__ typename Acc::State warp_reduce(typename Acc::State s) {
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset /= 2) s = Acc::combine(s, Acc::shuffle_down(s, offset));
    return s;
}

// The sum of the 32 lanes' x, in every lane; exact while that sum fits an int64. x is cut into two
// unsigned 21-bit pieces and its signed top, x >> 42, each summed by one REDUX (sm_80): below 2^26
// in magnitude, put back together modulo 2^64. Three independent REDUXes instead of five dependent
// rounds of two shuffles and a 64-bit add.
__device__ inline long long warp_sum_int64(long long x) {
    const auto bits = static_cast<unsigned long long>(x);
    const unsigned low = __reduce_add_sync(kFullWarp, static_cast<unsigned>(bits) & 0x1fffffu);
    const unsigned middle = __reduce_add_sync(kFullWarp, static_cast<unsigned>(bits >> 21) & 0x1fffffu);
    const int top = __reduce_add_sync(kFullWarp, static_cast<int>(x >> 42));
    return static_cast<long long>(low + (static_cast<unsigned long long>(middle) << 21) +
                                  (static_cast<unsigned long long>(static_cast<long long>(top)) << 42));
}

}  // namespace shootout::cuda
