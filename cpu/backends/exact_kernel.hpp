// The exact kernel the vector and multi-thread exact backends (cpu/exact/simd, cpu/exact/parallel,
// mpi/exact) run on a range: for floats the widest exact SIMD kernel this CPU runs
// (cpu/kernels/simd_exact.hpp), for doubles the superaccumulator one value at a time (no vector
// kernel for doubles yet: their 53-bit significands leave an int64 window 10 binades). float16 and
// bfloat16 values are floats: widened a block at a time (float16 by the vector conversion), they
// take the float kernel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "api/element_type.hpp"
#include "exact/exact_accumulator.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {

// The exact sum a range of T is added to: exact::Sum<float> for the 16-bit types (their values
// widened to floats, exactly), exact::Sum<T> for float and double. Either rounds to the same double.
template <class T>
using ExactSumOf = exact::Sum<ArithmeticOf<T>>;

// Adds x[0, n) to sum; leaves its digits normalized.
template <class T>
void accumulate_exact(const T* x, std::size_t n, ExactSumOf<T>& sum) {
    if constexpr (std::is_same_v<T, float>) {
        simd::best().accumulate_exact(x, n, sum);
    } else if constexpr (std::is_same_v<T, double>) {
        exact::accumulate(x, n, sum);
    } else {
        constexpr std::size_t kBlock = 4096;  // 16 KiB of floats: the widened block stays in L1
        float block[kBlock];
        for (std::size_t begin = 0; begin < n; begin += kBlock) {
            const std::size_t count = std::min(kBlock, n - begin);
            if constexpr (std::is_same_v<T, Float16>) simd::best().widen_f16(x + begin, count, block);
            else std::copy(x + begin, x + begin + count, block);  // a shift each, which the compiler vectorises
            simd::best().accumulate_exact(block, count, sum);
        }
    }
}

}  // namespace shootout
