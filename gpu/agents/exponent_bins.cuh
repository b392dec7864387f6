// nccl/exact's per-GPU exact state, a seam: cuda/exact (gpu/exact_sum.cu, issue 10) rounds its grid
// total on the device and hands out no digits, so until it can hand them to an all-reduce this is
// the first level of bench/exact_sum's superaccumulator, on the device. Word e < 256 sums, as
// a 64-bit integer, the signed 24-bit significands of the floats whose biased exponent is e
// (subnormals in word 1); words 256, 257 and 258 count NaNs, +Infs and -Infs. Integer additions do
// not depend on order, so any grid, any split over GPUs and any all-reduce order give the same words,
// and an ncclInt64 sum of several GPUs' words is the words of the whole input: exact while no word
// passes 2^63, i.e. for fewer than 2^39 floats (8 H200s hold 2^38). The host folds the words into an
// ExactAccumulator (add_exponent_bins()) and rounds once.
//
// Block bins in shared memory take 64-bit atomics; floats sharing an exponent in one warp serialise
// on them, so this runs well below memory bandwidth: correctness first, until cuda/exact's
// window-and-digits kernel replaces it (its exact::Sum digits are integer words too, all-reduced the
// same way, with one 0/1 word per kind of special value).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace shootout::cuda::exponent_bins {

inline constexpr int kExponents = 256;
inline constexpr int kNan = 256, kPlusInfinity = 257, kMinusInfinity = 258;
inline constexpr int kWords = 259;

// Adds in[0..n) to words[0..kWords), which hold 64-bit two's complement integers (added modulo
// 2^64 by the atomics, which is exact while the true sums fit).
__global__ void add(const float* __restrict__ in, std::size_t n, unsigned long long* words) {
    __shared__ unsigned long long block_words[kWords];
    for (int k = threadIdx.x; k < kWords; k += blockDim.x) block_words[k] = 0;
    __syncthreads();
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned bits = __float_as_uint(__ldg(in + i));
        const unsigned exponent = (bits >> 23) & 0xffu;
        const bool negative = (bits >> 31) != 0;
        if (exponent == 0xffu) {
            atomicAdd(&block_words[(bits & 0x7fffffu) ? kNan : negative ? kMinusInfinity : kPlusInfinity], 1ull);
            continue;
        }
        const unsigned long long significand = (bits & 0x7fffffu) | (exponent != 0 ? 0x800000u : 0u);
        if (significand == 0) continue;  // a zero adds nothing
        atomicAdd(&block_words[exponent != 0 ? exponent : 1], negative ? 0ull - significand : significand);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < kWords; k += blockDim.x)
        if (block_words[k] != 0) atomicAdd(words + k, block_words[k]);
}

}  // namespace shootout::cuda::exponent_bins
