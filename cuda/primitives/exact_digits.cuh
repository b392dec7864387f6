// cuda/exact's fixed-point layout, which its thread, warp and block levels share: the thread's
// fixed-point window, a thread's or a warp's superaccumulator digits in shared memory, and a
// thread's register total as four integer terms at one lsb. The rule every level follows: a value
// leaves the floating-point format only as integers at known powers of two, so that every later
// addition is an integer one, exact and independent of order (exact/exact_accumulator.hpp has the
// digits' format, host and device).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "exact/exact_accumulator.hpp"

namespace shootout::cuda::exact_agent {

// Window integers below 2^53: a window of 30 binades. Its lsb stays at or above -126, where its scale
// is a float (x * scale is one FMUL); floats below 2^-103 go to the digits. Its top is a multiple of
// 4 binades, so that a warp's lanes, whose first values are alike, mostly share it and add their
// totals as integers (warp_digit_sum.cuh); the largest value then sits in the top 4 binades of the 30.
inline constexpr int kWindowTopBit = 53, kWindowLowestLsb = -126, kWindowAlign = 4;
inline constexpr int kWindowBinades = kWindowTopBit - 23;
// The lsb of a thread that has not started its window (no finite nonzero value yet): below any real
// one, so the warp's highest is a real one when any lane has it.
inline constexpr int kNoWindow = -1024;
// Halves and digits are folded and normalized every 2^16 rounds: a round adds below 2^32 to a low
// half and 2^30 to a high one (< 2^48 and 2^46 between folds), and under 2^11 pieces to a digit
// (302 values a round, exact_agent.cuh's kTripsPerRound, and 4 per fold, a fold per window move),
// far from 2^31 pieces.
inline constexpr unsigned kRoundsPerNormalize = 1u << 16;

// A thread's digits: column threadIdx.x of a [kDigits][blockDim.x] array in shared memory. A warp
// adding to any mix of digits touches 32 consecutive 8-byte words of each row it uses: 2 wavefronts,
// no bank conflict.
template <class T>
struct SharedDigits {
    using Element = T;
    static constexpr int kCount = exact::kDigits<T>;
    std::int64_t* column;
    unsigned stride;
    __host__ __device__ std::int64_t& operator[](int k) const { return column[k * stride]; }
    __host__ __device__ void clear() const {
        for (int k = 0; k < kCount; ++k) column[k * stride] = 0;
    }
};

// A warp's digits, shared by its lanes: row `warp` of a [warps][kDigits] array in shared memory
// (stride 1), so that lanes adding to different digits mostly hit different banks. Its lanes add
// with shared-memory atomics (an exact::add_value through it adds each piece with one); only
// whole-warp code reads or writes it otherwise. A digit takes pieces below 2^32, at most four per
// double (a lost one, or an overflow's three terms), and has its carries moved up once, at the end
// (normalize_warp_digits): below 2^31 pieces while a warp reads fewer than 2^29 doubles (n below
// 2^29 times the grid's warps). A piece goes in as two native 32-bit atomic adds, the low word's
// carry out added to the high word with the piece's high half (the two words' sum mod 2^64 is the
// digit's, exact in any order): sm_90 has no 64-bit shared-memory atomic add, only a compare-and-swap
// loop (ATOMS.CAST.SPIN.64). Chosen by the SASS: not yet timed on wide doubles, its only user.
struct WarpDigits {
    using Element = double;
    static constexpr int kCount = exact::kDigits<double>;
    struct Digit {
        std::int64_t* word;
        __host__ __device__ void operator+=(std::int64_t piece) const {
#if defined(__CUDA_ARCH__)
            unsigned* const words = reinterpret_cast<unsigned*>(word);  // little-endian: the low word first
            const auto low = static_cast<unsigned>(piece), high = static_cast<unsigned>(static_cast<unsigned long long>(piece) >> 32);
            const unsigned before = atomicAdd(words, low);
            const unsigned carried = high + (before + low < before ? 1u : 0u);
            if (carried != 0) atomicAdd(words + 1, carried);
#else
            *word += piece;
#endif
        }
    };
    std::int64_t* column;
    unsigned stride;
    __host__ __device__ Digit operator[](int k) const { return {column + k * stride}; }
    __host__ __device__ std::int64_t& word(int k) const { return column[k * stride]; }
};

// A thread's register total at the end: four integers at 2^(lsb + term_shift(j)): the window's low
// and high halves, the window below's low and high halves.
inline constexpr int kTerms = 4;
__host__ __device__ constexpr int term_shift(int j) { return (j & 1) * 32 - (j >> 1) * kWindowBinades; }

struct ThreadTotal {
    int lsb = kNoWindow;
    long long term[kTerms] = {};
    unsigned specials = 0;
    bool digits_used = false;  // its digits were zeroed and hold its share, normalized; else never written
};

// Adds the nonzero terms to the digits (each below 2^49, at positions below 2^256: three digits at
// most, under the top one).
template <class Digits>
__host__ __device__ void add_terms(Digits& digits, const long long (&term)[kTerms], int lsb) {
    for (int j = 0; j < kTerms; ++j)
        if (term[j] != 0) exact::add_fixed(digits, term[j], lsb + term_shift(j));
}

// Bits [32 d, 32 d + 32) of |value| 2^p (p counted from T's unit), with value's sign; the top digit
// takes every bit from 32 d up. Summed over d, times 2^(32 d), they give value 2^p exactly.
template <class T>
__host__ __device__ long long digit_piece(long long value, int p, int d) {
    if (value == 0) return 0;
    const unsigned long long magnitude = value < 0 ? 0ull - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
    const int shift = p - d * exact::kDigitBits;
    unsigned long long bits = shift >= 0 ? (shift < 64 ? magnitude << shift : 0ull) : (shift > -64 ? magnitude >> -shift : 0ull);
    if (d + 1 < exact::kDigits<T>) bits &= 0xffffffffull;
    return value < 0 ? -static_cast<long long>(bits) : static_cast<long long>(bits);
}

}  // namespace shootout::cuda::exact_agent
