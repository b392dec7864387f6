// Compensated summation in one working precision: Kahan's and Neumaier's running (sum, compensation)
// pairs. Used by the scalar backends and, to combine vector lanes, inside the SIMD kernels.
//
// always_inline: the SIMD kernels are compiled with AVX-512 flags; an out-of-line copy emitted there
// could be the one the linker keeps for every caller and fault on an AVX2-only CPU.
#pragma once

#include <cmath>

namespace shootout {

// One sign convention for every compensated sum in the project, CPU and GPU (cuda/primitives/accumulators.cuh):
// the compensation is what rounding took off the sum, so sum + compensation approximates the total.

// Kahan (1965): carries the low-order part that each addition lost into the next one.
// Error: |E| <= (2u + O(n u^2)) sum |x| (Higham, Accuracy and Stability of Numerical Algorithms,
// 2nd ed., eq. 4.8).
template <class T>
struct KahanSum {
    T sum = 0, compensation = 0;  // sum + compensation approximates the exact total

    [[gnu::always_inline]] inline void add(T x) {
        const T y = x + compensation;
        const T t = sum + y;
        // Past an overflow or an infinity, y - (t - sum) is inf - inf: keep t's infinity instead.
        compensation = std::isfinite(t) ? y - (t - sum) : T(0);
        sum = t;
    }
    [[gnu::always_inline]] inline T result() const { return sum + compensation; }
};

// Neumaier (1974): like Kahan, but also exact when the addend is larger than the running sum, and
// the lost parts are accumulated apart and added once at the end. It computes what Ogita, Rump and
// Oishi call Sum2: |E| <= u |S| + gamma_{n-1}^2 sum |x| (SIAM J. Sci. Comput. 26(6), 2005, Prop. 4.5).
template <class T>
struct NeumaierSum {
    T sum = 0, compensation = 0;  // sum + compensation approximates the exact total

    [[gnu::always_inline]] inline void add(T x) {
        const T t = sum + x;
        // The bigger operand keeps its bits in t; recover the smaller one's lost part exactly.
        // Once t is infinite or NaN, the recovered part is NaN: leave it out, t already says it.
        if (std::isfinite(t))
            compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
    }
    [[gnu::always_inline]] inline T result() const { return sum + compensation; }
};

}  // namespace shootout
