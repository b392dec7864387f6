// The exact kernel the vector and multi-thread exact backends (cpu/exact/simd, cpu/exact/parallel,
// mpi/exact) run on a range: for floats the widest exact SIMD kernel this CPU runs
// (cpu/kernels/simd_exact.hpp), for doubles the superaccumulator one value at a time (no vector
// kernel for doubles yet: their 53-bit significands leave an int64 window 10 binades).
#pragma once

#include <cstddef>
#include <type_traits>

#include "exact/exact_accumulator.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {

// Adds x[0, n) to sum; leaves its digits normalized.
template <class T>
void accumulate_exact(const T* x, std::size_t n, exact::Sum<T>& sum) {
    if constexpr (std::is_same_v<T, float>) simd::best().accumulate_exact(x, n, sum);
    else exact::accumulate(x, n, sum);
}

}  // namespace shootout
