// The exact kernel the vector and multi-thread exact backends (cpu/exact/simd, cpu/exact/parallel,
// mpi/exact) run on a range: for floats the widest exact SIMD kernel this CPU runs
// (cpu/kernels/simd_exact.hpp), for doubles the superaccumulator one value at a time (no vector
// kernel for doubles yet: their 53-bit significands leave an int64 window 10 binades). float16 and
// bfloat16 values are floats: the float kernel widens them as it loads them.
#pragma once

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
    if constexpr (std::is_same_v<T, double>) exact::accumulate(x, n, sum);
    else simd::best().exact_of<T>()(x, n, sum);
}

}  // namespace shootout
