// The exact kernel the vector and multi-thread exact backends (cpu/exact/simd, cpu/exact/parallel,
// mpi/exact) run on a range: for floats the widest exact SIMD kernel this CPU runs
// (cpu/kernels/simd_exact.hpp), for doubles the superaccumulator one value at a time (no vector
// kernel for doubles yet: their 53-bit significands leave an int64 window 10 binades). float16
// values are all integer multiples of 2^-24 below 2^16, so their sum is one int64 of those units;
// bfloat16 values are floats of float's range, and take the float kernel, widened a block at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exact/exact_accumulator.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {

// The exact sum a range of T is added to: exact::Sum<float> for bfloat16 (its values widened to
// floats, exactly), exact::Sum<T> for the others. Either rounds to the same double.
template <class T>
using ExactSumOf = exact::Sum<std::conditional_t<std::is_same_v<T, BFloat16>, float, T>>;

// Adds x[0, n) to sum; leaves its digits normalized.
template <class T>
void accumulate_exact(const T* x, std::size_t n, exact::Sum<T>& sum) {
    if constexpr (std::is_same_v<T, float>) simd::best().accumulate_exact(x, n, sum);
    else exact::accumulate(x, n, sum);
}

// float16: m 2^p units of 2^-24, m < 2^11 and p <= 29, so below 2^40; 2^23 of them, or their
// negations, add up in an int64 without overflow. NaN and infinities go to add_value, which flags them.
inline void accumulate_exact(const Float16* x, std::size_t n, exact::Sum<Float16>& sum) {
    constexpr std::size_t kRound = std::size_t{1} << 23;
    for (std::size_t begin = 0; begin < n; begin += kRound) {
        const std::size_t end = std::min(n, begin + kRound);
        std::int64_t units = 0;
        for (std::size_t i = begin; i < end; ++i) {
            const std::uint32_t bits = x[i].bits, biased = bits >> 10 & 31u;
            if (biased == 31u) [[unlikely]] {
                sum.add(x[i]);
                continue;
            }
            const auto m = static_cast<std::int64_t>((bits & 0x3ffu) | (biased != 0 ? 0x400u : 0u));
            const std::int64_t value = m << (biased != 0 ? biased - 1 : 0);
            units += bits >> 15 ? -value : value;
        }
        exact::add_fixed(sum.digits, units, exact::kUnitExponent<Float16>);
        exact::normalize(sum.digits);
    }
}

// bfloat16: widened a block at a time (one L1's worth) and added by the float kernel.
inline void accumulate_exact(const BFloat16* x, std::size_t n, exact::Sum<float>& sum) {
    constexpr std::size_t kBlock = 4096;
    float block[kBlock];
    for (std::size_t begin = 0; begin < n; begin += kBlock) {
        const std::size_t count = std::min(kBlock, n - begin);
        std::copy(x + begin, x + begin + count, block);
        accumulate_exact(block, count, sum);
    }
}

}  // namespace shootout
