// Warp level of cuda/exact: a warp's lanes' exact totals brought together as integers, beside
// warp_reduce.cuh's warp_sum_int64, which every sum here is made of. Floats and 16-bit types: the
// lanes whose window is the warp's highest sum their four terms by REDUX sums; a lane with a lower
// window folds its terms into its digits instead. Doubles: the lanes' expansions go digit by digit
// into their warp's digits. The rule: whole-warp code (every lane calls it), integer sums only.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "exact/exact_accumulator.hpp"
#include "cuda/primitives/exact_digits.cuh"
#include "cuda/primitives/warp_reduce.cuh"

namespace shootout::cuda::exact_agent {

// The warp's highest window, which every lane's terms are summed at: a lane below it folds its terms
// into its digits, normalized, and clears them. Returns the window's lsb.
template <class T>
__device__ int join_warp_window(ThreadTotal& own, const SharedDigits<T>& mine) {
    const int top = __reduce_max_sync(kFullWarp, own.lsb);
    if (own.lsb != top && (own.term[0] | own.term[1] | own.term[2] | own.term[3]) != 0) {
        if (!own.digits_used) mine.clear();
        add_terms(mine, own.term, own.lsb);
        exact::normalize(mine);
        own.digits_used = true;
        for (long long& term : own.term) term = 0;
    }
    return top;
}

// The sums of the lanes' terms, in every lane: term[j] becomes the sum of own[j] where a lane of the
// warp has a nonzero half of that window, and is left as it is (zero) where none has. A lane's low
// halves are below 2^49, its high halves' magnitudes below 2^47: the warp's sums below 2^54.
__device__ inline void warp_sum_terms(const long long (&own)[kTerms], long long (&term)[kTerms]) {
#pragma unroll
    for (int j = 0; j < kTerms; j += 2) {
        if (__any_sync(kFullWarp, (own[j] | own[j + 1]) != 0)) {
            term[j] = warp_sum_int64(own[j]);
            term[j + 1] = warp_sum_int64(own[j + 1]);
        }
    }
}

// Adds every lane's v (finite) to the warp's digits: each digit the lanes' values reach, summed by
// shuffles, added by lane 0. Lanes of a warp hold sums of alike values: a few digits.
__device__ inline void add_warp_doubles(const WarpDigits& digits, double v) {
    constexpr int kFraction = 52;
    const std::uint64_t bits = exact::bits_of(v);
    const int biased = static_cast<int>(bits >> kFraction) & 0x7ff;
    const std::uint64_t m = (bits & ((std::uint64_t{1} << kFraction) - 1)) | (biased != 0 ? std::uint64_t{1} << kFraction : 0);
    const int p = biased != 0 ? biased - 1 : 0;  // counted from 2^-1074
    const int k = m != 0 ? p / exact::kDigitBits : INT_MAX;
    const int lowest = __reduce_min_sync(kFullWarp, k);
    if (lowest == INT_MAX) return;  // all zeros
    const int highest = __reduce_max_sync(kFullWarp, m != 0 ? k : INT_MIN);
    const bool negative = (bits >> 63) != 0;
    for (int d = lowest; d <= highest + 2; ++d) {
        const long long piece = m != 0 && d >= k && d <= k + 2 ? digit_piece<double>(negative ? -static_cast<long long>(m) : static_cast<long long>(m), p, d) : 0;
        const long long s = warp_sum_int64(piece);
        if (threadIdx.x % 32 == 0 && s != 0) digits.word(d) += s;
    }
}

// The warp's digits with each one's carry moved up one digit, by all lanes at once (a serial carry
// chain on one lane is 67 dependent shared-memory round trips, about 1.5 us): every digit but the
// top one is then in (-2^31, 2^32 + 2^31), below 2^33 in magnitude, and the digits' value is
// unchanged. Once every lane's atomics and add_warp_doubles are in.
__device__ inline void normalize_warp_digits(const WarpDigits& digits) {
    constexpr int kDigits = exact::kDigits<double>, kPerLane = (kDigits + 31) / 32;
    const int lane = static_cast<int>(threadIdx.x % 32);
    std::int64_t kept[kPerLane];
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
        const int k = lane + 32 * j;
        if (k >= kDigits) break;
        const std::int64_t own = digits.word(k), below = k > 0 ? digits.word(k - 1) : 0;
        kept[j] = (k + 1 < kDigits ? own & 0xffffffffll : own) + (below >> exact::kDigitBits);
    }
    __syncwarp();  // every lane's reads are done before any digit changes
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
        const int k = lane + 32 * j;
        if (k >= kDigits) break;
        digits.word(k) = kept[j];
    }
}

}  // namespace shootout::cuda::exact_agent
