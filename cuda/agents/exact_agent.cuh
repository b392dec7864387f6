// The exact sum of a device array in one launch, up to the grid's unrounded total: cuda/exact's
// kernel, also nccl/exact's on each GPU. What the last block does with the total is the caller's
// Finish: round it to a double (cuda/exact), or write it as integer words for an all-reduce
// (nccl/exact). Integer additions do not depend on order, so the total is the same for any grid and
// block size.
//  1. Floats: each block reads a contiguous run of whole tiles, each thread 16-byte loads, several
//     in flight (even_share_agent.cuh's partition). A float inside the thread's fixed-point window
//     (exact/exact_accumulator.hpp) costs a multiply, a conversion to int64 and a 64-bit add, all in
//     registers, without a branch; the thread's first trip starts the window at its largest. Once per
//     16 floats one branch takes the others, if any: those in the window just below it, into a
//     second register total the same way; the rest one at a time into the thread's own
//     superaccumulator digits in shared memory: any float above the window (which also moves the
//     window up to it), floats below both windows, NaN and Inf. Every round of 256 floats the
//     register totals go carry-save into two 64-bit halves per window, still in registers; the digits
//     take them only when the window moves (and every 2^16 rounds).
//     bfloat16 (every value a float, 8 a load): a trip whose values all lie in the float window's top
//     15 binades adds them as int32 at a coarser lsb, two instructions a value (BfloatWindow); any
//     other trip goes through the float path one value at a time.
//     float16: every value is an integer number of 2^-24 below 2^40, so the window is fixed and holds
//     them all: a thread adds each as an int64 (HalfThreadSum), one branch a trip for NaN and Inf.
//     Doubles: each thread keeps a floating-point expansion of three doubles (DoubleThreadSum), a
//     trip's doubles added by TwoSums; a trip whose last error is not zero is redone one double at a
//     time, what the expansion cannot hold going to its warp's digits in shared memory (atomics);
//     at the end the warp adds its lanes' expansions into those digits by warp sums.
//  2. Per warp, the lanes whose window is the warp's highest add their four halves by REDUX sums (a
//     lane with a lower window folds its halves into its digits instead). Per block, warp w computes
//     digits w, w + warps, ... of the block's total: each warp's halves cut into 32-bit pieces at
//     their positions, and the threads' digits, if any thread used its own. Until here nothing is
//     global: a programmatic launch overlaps all of it with the call before.
//  3. Each block adds its digits to one of 32 stripes of the grid's total with 64-bit integer
//     atomics, exact and commutative: no order of blocks can change the total, and no address takes
//     more than one block in 32. The last block to finish (a ticket after a __threadfence, as in
//     CUDA's threadFenceReduction sample) sums the stripes, a warp per digit, leaves zeros for the
//     next call, and hands the total to Finish. A grid of one block hands its own total over.
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exact/exact_accumulator.hpp"
#include "cuda/agents/grid_stride_agent.cuh"
#include "cuda/primitives/accumulators.cuh"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/warp_reduce.cuh"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/runtime/launch_config.cuh"
#include "cuda/runtime/programmatic_launch.cuh"

namespace shootout::cuda::exact_agent {

// Window integers below 2^53: a window of 30 binades. Its lsb stays at or above -126, where its scale
// is a float (x * scale is one FMUL); floats below 2^-103 go to the digits. Its top is a multiple of
// 4 binades, so that a warp's lanes, whose first values are alike, mostly share it and add their
// totals as integers (step 2); the largest value then sits in the top 4 binades of the 30.
inline constexpr int kWindowTopBit = 53, kWindowLowestLsb = -126, kWindowAlign = 4;
inline constexpr int kWindowBinades = kWindowTopBit - 23;
// The lsb of a thread that has not started its window (no finite nonzero value yet): below any real
// one, so the warp's highest is a real one when any lane has it.
inline constexpr int kNoWindow = -1024;
// Loop trips per round: 256 floats, 16 x 4 loads x 4 floats or 8 x 4 loads x 8 16-bit values. With
// the unaligned head before the first round and the last vectors and tail after the last, at most
// 256 + 2 x 7 + 4 x 8 = 302 < 2^9 floats are added between carry-saves, so the register total stays
// below 2^9 x 2^53 = 2^62.
template <class In>
inline constexpr int kTripsPerRound = 256 / (kLoadsInFlight * kVectorLanes<In>);
// Halves and digits are folded and normalized every 2^16 rounds: a round adds below 2^32 to a low
// half and 2^30 to a high one (< 2^48 and 2^46 between folds), and under 2^11 pieces to a digit
// (302 values and 4 per fold, a fold per window move), far from 2^31 pieces.
inline constexpr unsigned kRoundsPerNormalize = 1u << 16;
// Doubles per thread's expansion (DoubleThreadSum): three hold inputs spanning about 106 binades
// below the running sum, ill:1e30 included, for 18 DADDs a double, within the FP64 pipes' rate at
// HBM speed (cuda/PERFORMANCE.md, "cuda/exact").
inline constexpr int kExpansionTerms = 3;
// The grid's total is kept in this many copies (blockIdx.x % kStripes): one warp's lanes sum them.
inline constexpr unsigned kStripes = 32;

// Threads per block and __launch_bounds__'s minimum blocks per SM (which caps registers at
// 64K / (BlockThreads x MinBlocksPerSm)). The grid is just large enough that each thread makes one
// pass of kLoadsInFlight loads, never more than are resident at once, and leaves a block slot per
// SM to the next call while the resident grid would make at most ShortCallPasses passes
// (overlapping_grid, launch_config.cuh).
template <int BlockThreads, int MinBlocksPerSm, int ShortCallPasses>
struct ExactPolicy {
    static_assert(BlockThreads % 32 == 0 && BlockThreads >= 64 && BlockThreads <= 1024 && MinBlocksPerSm >= 1 && ShortCallPasses >= 0);
    static constexpr int kBlockThreads = BlockThreads;
    static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
    static constexpr int kShortCallPasses = ShortCallPasses;
};

// 256 threads as cuda/single-pass (cuda/PERFORMANCE.md, "cuda/single-pass"): one block per 4096
// floats keeps a small grid fine-grained; 4 blocks of 256 per SM hold 64 KiB of loads in flight
// (HBM needs about 29 KiB) within 64 registers a thread, which the float and 16-bit kernels fit
// without spilling (ptxas, nvcc 13.0, sm_90). Doubles: 3 blocks (48 KiB in flight) and 80
// registers, for the expansion, its copy from before the trip and the four loads (at 64 the loop
// fits alone, the kernel spills 488 bytes; at 80 it spills 24, in the last block's rounding).
// A free slot per SM up to 8 passes: the block's finish (step 2 and 3) then overlaps the next call's
// loads, batched 7.58 -> 5.85 us at 2^22 and 19.2 -> 15.3 at 2^24 on the H200, isolated 15.0 -> 14.4
// and 26.2 -> 25.4; doubles 18.8 -> 14.4 at 2^22 (cuda/PERFORMANCE.md, "Grid").
template <class In>
struct ExactTuning {
    using Policy = std::conditional_t<std::is_same_v<In, double>, ExactPolicy<256, 3, 8>, ExactPolicy<256, 4, 8>>;
};

// The format whose superaccumulator digits sum In: double for doubles; float for floats and for the
// 16-bit types, whose every value is a float.
template <class In>
using ExactFormat = std::conditional_t<std::is_same_v<In, double>, double, float>;

// Columns of digits a block keeps in shared memory: one per thread for floats and the 16-bit types
// (a thread adds to its own without atomics); one per warp for doubles (67 digits a thread would
// take 137 KiB a block; a warp's lanes add to theirs with shared-memory atomics, off the fast path).
template <class In>
__host__ __device__ constexpr int digit_columns(int block_threads) {
    return std::is_same_v<In, double> ? block_threads / 32 : block_threads;
}

// The grid's total between its blocks' atomics and the last block's Finish: kStripes copies, all
// zeros between launches, and the ticket (atomicInc wraps it back to 0).
template <class T>
struct GridTotal {
    unsigned long long digit[kStripes][exact::kDigits<T>];
    unsigned specials[kStripes];
    unsigned ticket;
};

// The dynamic shared memory a block of `threads` takes: its columns of digits.
template <class In>
__host__ __device__ constexpr std::size_t shared_bytes(int block_threads) {
    return std::size_t{exact::kDigits<ExactFormat<In>>} * sizeof(std::int64_t) * digit_columns<In>(block_threads);
}

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

// The largest |x| of a vector's floats but NaN (fmaxf passes over it): one FMNMX a float.
__device__ inline float largest_magnitude(float4 v) { return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))); }
template <class In>
__device__ float largest_magnitude(uint4 v) {
    if constexpr (kVectorLanes<In> == 4) return largest_magnitude(float_quad<In, 0>(v));
    else return fmaxf(largest_magnitude(float_quad<In, 0>(v)), largest_magnitude(float_quad<In, 1>(v)));
}

// bfloat16's fast window: the float window's top 15 binades (exact::BfloatWindow), as int32.
using BfloatWindow = exact::BfloatWindow<kWindowTopBit>;

class FloatThreadSum {
public:
    // No window until the thread's first values start it (start(), or add_outside() for one value).
    // The digits are zeroed on first use: most threads never write them.
    __host__ __device__ explicit FloatThreadSum(SharedDigits<float> digits) : digits_(digits) {
        window_ = {.lo = exact::float_from_bits(0x7f800000u), .hi = 0.0f, .scale = 0.0, .lsb = kNoWindow};  // holds nothing
    }

    // The main loop's two steps for a trip's floats: every float inside the window, returning whether
    // all were; then, only if not, the others, judged by the window the first step used.
    __host__ __device__ bool add_inside(float4 v) {
        const unsigned all = static_cast<unsigned>(add_inside(v.x)) & static_cast<unsigned>(add_inside(v.y)) &
                             static_cast<unsigned>(add_inside(v.z)) & static_cast<unsigned>(add_inside(v.w));  // no branches
        return all != 0;
    }
    __host__ __device__ void add_missed(float4 v, const exact::Window& used) {
        add_missed(v.x, used);
        add_missed(v.y, used);
        add_missed(v.z, used);
        add_missed(v.w, used);
    }
    __host__ __device__ const exact::Window& window() const { return window_; }
    __host__ __device__ const BfloatWindow& bfloat_window() const { return bfloat_; }
    // A trip's bfloat16 values, all in the bfloat16 window: their integer total at its lsb.
    __host__ __device__ void add_bfloat_integers(int total) { total_ += static_cast<long long>(total) << BfloatWindow::kShift; }

    __host__ __device__ bool started() const { return window_.lsb != kNoWindow; }
    // Starts the window at `largest`, the largest magnitude of the thread's first values (at most
    // FLT_MAX); with none (0), leaves it for the values after.
    __host__ __device__ void start(float largest) {
        if (largest > 0) move_window(largest);
    }

    __host__ __device__ void add(float x) {
        if (!add_inside(x)) add_outside(x);
    }

    __host__ __device__ void end_round() {
        carry_save();
        if (++rounds_ % kRoundsPerNormalize == 0) {
            fold();
            if (digits_used_) exact::normalize(digits_);
        }
    }
    // The register total; the digits, if used, normalized (each below 2^32 but the top one).
    __host__ __device__ ThreadTotal finish() {
        carry_save();
        if (digits_used_) exact::normalize(digits_);
        ThreadTotal total{.lsb = window_.lsb, .term = {low_, high_, below_low_, below_high_}, .specials = specials_, .digits_used = digits_used_};
        return total;
    }

private:
    // The round's totals into the halves: low 32 bits and the (signed) rest of each.
    __host__ __device__ void carry_save() {
        low_ += total_ & 0xffffffffll;
        high_ += total_ >> 32;
        below_low_ += total_below_ & 0xffffffffll;
        below_high_ += total_below_ >> 32;
        total_ = total_below_ = 0;
    }
    // Everything in registers into the digits, before the window moves.
    __host__ __device__ void fold() {
        carry_save();
        const long long terms[kTerms] = {low_, high_, below_low_, below_high_};
        if ((low_ | high_ | below_low_ | below_high_) == 0) return;
        add_terms(used_digits(), terms, window_.lsb);
        low_ = high_ = below_low_ = below_high_ = 0;
    }
    __host__ __device__ bool add_inside(float x) {
        const bool inside = window_.contains(fabsf(x));
        if (inside) total_ += static_cast<long long>(x * scale_);  // exact: a predicated multiply, convert, add
        return inside;
    }
    __host__ __device__ void add_missed(float x, const exact::Window& used) {
        if (!used.contains(fabsf(x))) add_outside(x);
    }
    // A float not yet added: into the window (which it starts if there is none; a float before it in
    // the same trip may have moved it), else the window just below it, else the digits; a float
    // above the window also moves the window up to it, for the floats after.
    __host__ __device__ void add_outside(float x) {
        const float magnitude = fabsf(x);
        if (magnitude == 0) return;
        if (!started() && magnitude <= FLT_MAX) move_window(magnitude);
        if (add_inside(x)) return;
        // The window below: lsb 30 lower, [lo 2^-30, lo), as long as that lsb is not below -126.
        // It keeps data spanning up to 60 binades (ill:1e16) out of the digits.
        if (magnitude < window_.lo && magnitude >= window_.lo * 0x1p-30f && window_.lsb - kWindowBinades >= kWindowLowestLsb) {
            total_below_ += static_cast<long long>(x * (scale_ * 0x1p30f));  // exact
            return;
        }
        specials_ |= exact::add_value(used_digits(), x);
        if (magnitude >= window_.hi && magnitude <= FLT_MAX) {
            fold();
            move_window(magnitude);
        }
    }

    __host__ __device__ void move_window(float magnitude) {
        window_ = exact::window_for<kWindowTopBit, kWindowLowestLsb, kWindowAlign>(magnitude);
        scale_ = static_cast<float>(window_.scale);  // exact: 2^-lsb <= 2^126
        bfloat_ = BfloatWindow::below_top_of(window_);
    }
    __host__ __device__ SharedDigits<float>& used_digits() {
        if (!digits_used_) digits_.clear();
        digits_used_ = true;
        return digits_;
    }

    SharedDigits<float> digits_;
    exact::Window window_;
    BfloatWindow bfloat_;
    float scale_ = 0.0f;
    long long total_ = 0, total_below_ = 0;  // the two windows' integers added this round
    long long low_ = 0, high_ = 0, below_low_ = 0, below_high_ = 0;  // earlier rounds', carry-save
    unsigned specials_ = 0, rounds_ = 0;
    bool digits_used_ = false;
};

// A warp's digits, shared by its lanes: column `warp` of a [kDigits][warps] array in shared memory.
// Its lanes add with shared-memory atomics (an exact::add_value through it adds each piece with one);
// only whole-warp code reads or writes it otherwise. A digit takes pieces below 2^32, at most four
// per double (a lost one, or an overflow's three terms), and is normalized once, at the end: below
// 2^31 pieces while a warp reads fewer than 2^29 doubles (n below 2^29 times the grid's warps).
struct WarpDigits {
    using Element = double;
    static constexpr int kCount = exact::kDigits<double>;
    struct Digit {
        std::int64_t* word;
        __host__ __device__ void operator+=(std::int64_t piece) const {
#if defined(__CUDA_ARCH__)
            atomicAdd(reinterpret_cast<unsigned long long*>(word), static_cast<unsigned long long>(piece));
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

// float16: every finite value times 2^24 is an integer below 2^40 (65504 = 2047 x 2^5 is the
// largest, 2^-24 the smallest subnormal), so a thread adds them as int64 at lsb -24: a conversion
// to float (packed), FMUL by 2^24, F2I.S64 and a 64-bit add, with no window and no branch but one a
// trip for NaN and Inf. Its total is the float window's terms at lsb -24, which the whole warp
// shares.
class HalfThreadSum {
public:
    static constexpr int kLsb = -24;

    // The digits are zeroed on first use, as FloatThreadSum's.
    __host__ __device__ explicit HalfThreadSum(SharedDigits<float> digits) : digits_(digits) {}

    template <int Vectors>
    __host__ __device__ void begin_trip(const uint4 (&)[Vectors]) { saved_ = total_; }
    // A vector's 8 values, finite or not (a trip with NaN or Inf is redone with add_one).
    __device__ void add_fast(uint4 v) {
        add_scaled(float_quad<__half, 0>(v));
        add_scaled(float_quad<__half, 1>(v));
        // Bit 15 of a half's (|bits| + 0x0400) is set exactly when its exponent is all ones.
        special_ |= ((v.x & 0x7fff7fffu) + 0x04000400u) | ((v.y & 0x7fff7fffu) + 0x04000400u) |
                    ((v.z & 0x7fff7fffu) + 0x04000400u) | ((v.w & 0x7fff7fffu) + 0x04000400u);
    }
    // Whether the trip's values were all finite; if not, the trip's total is undone, to be redone.
    __host__ __device__ bool end_trip() {
        const bool clean = (special_ & 0x80008000u) == 0;
        special_ = 0;
        if (!clean) total_ = saved_;
        return clean;
    }
    __device__ void redo(uint4 v) {
        const unsigned words[4] = {v.x, v.y, v.z, v.w};
        for (unsigned word : words) {
            const float2 pair = widen_pair<__half>(word);
            add_one(pair.x);
            add_one(pair.y);
        }
    }
    __host__ __device__ void add_one(float x) {
        if (fabsf(x) <= 65504.0f) total_ += static_cast<long long>(x * 0x1p24f);  // exact
        else specials_ |= exact::add_value(used_digits(), x);  // NaN or Inf: adds nothing
    }

    // A round adds below 302 x 2^40 < 2^49: below 2^32 to the low half, 2^17 to the high one.
    __host__ __device__ void end_round() {
        carry_save();
        if (++rounds_ % kRoundsPerNormalize == 0) {
            const long long terms[kTerms] = {low_, high_, 0, 0};
            add_terms(used_digits(), terms, kLsb);
            exact::normalize(digits_);
            low_ = high_ = 0;
        }
    }
    __host__ __device__ ThreadTotal finish() {
        carry_save();
        return {.lsb = kLsb, .term = {low_, high_, 0, 0}, .specials = specials_, .digits_used = digits_used_};
    }

private:
    __host__ __device__ void add_scaled(float4 q) {
        total_ += static_cast<long long>(q.x * 0x1p24f) + static_cast<long long>(q.y * 0x1p24f) +
                  static_cast<long long>(q.z * 0x1p24f) + static_cast<long long>(q.w * 0x1p24f);
    }
    __host__ __device__ void carry_save() {
        low_ += total_ & 0xffffffffll;
        high_ += total_ >> 32;
        total_ = 0;
    }
    __host__ __device__ SharedDigits<float>& used_digits() {
        if (!digits_used_) digits_.clear();
        digits_used_ = true;
        return digits_;
    }

    SharedDigits<float> digits_;
    long long total_ = 0, saved_ = 0, low_ = 0, high_ = 0;
    unsigned special_ = 0, specials_ = 0, rounds_ = 0;
    bool digits_used_ = false;
};

// s + e = a + b exactly, unless something overflowed, in which case e is not finite (Knuth's
// TwoSum: six additions, no branch, any order of magnitudes).
__host__ __device__ inline void two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    const double b_virtual = s - a;
    e = (a - (s - b_virtual)) + (b - b_virtual);
}

// float64: a floating-point expansion of Terms doubles per thread in registers, term[0] the largest
// (ExBLAS's first level, Collange et al. 2015): a double goes in by a chain of TwoSums, 6 DADDs each,
// each term taking the error of the one above, and the last error must be zero for the terms to hold
// the thread's sum exactly. A term keeps 53 bits below what the term above drops, so Terms terms
// hold inputs spanning about 53 (Terms - 1) binades below the thread's running sum. The OR of the
// last errors' bits decides once per trip; a trip with any nonzero (or NaN, Inf, or an overflow,
// which all leave a non-finite error) is undone and redone one double at a time: a nonzero last
// error into the warp's digits, an overflowing expansion into them and restarted, NaN and Inf into
// the specials.
template <int Terms>
class DoubleThreadSum {
public:
    static_assert(Terms >= 2);
    __host__ __device__ explicit DoubleThreadSum(WarpDigits digits) : digits_(digits) {}

    template <int Vectors>
    __host__ __device__ void begin_trip(const uint4 (&)[Vectors]) {
        for (int j = 0; j < Terms; ++j) saved_[j] = term_[j];
    }
    __device__ void add_fast(uint4 v) {
        add_fast(__hiloint2double(static_cast<int>(v.y), static_cast<int>(v.x)));
        add_fast(__hiloint2double(static_cast<int>(v.w), static_cast<int>(v.z)));
    }
    __host__ __device__ void add_fast(double x) {
        for (int j = 0; j < Terms; ++j) two_sum(term_[j], x, term_[j], x);
        missed_ |= exact::bits_of(x);
    }
    __host__ __device__ bool end_trip() {
        const bool clean = missed_ == 0;
        missed_ = 0;
        if (!clean)
            for (int j = 0; j < Terms; ++j) term_[j] = saved_[j];
        return clean;
    }
    __device__ void redo(uint4 v) {
        add_one(__hiloint2double(static_cast<int>(v.y), static_cast<int>(v.x)));
        add_one(__hiloint2double(static_cast<int>(v.w), static_cast<int>(v.z)));
    }
    __host__ __device__ void add_one(double x) {
        if (!(fabs(x) <= DBL_MAX)) {
            specials_ |= exact::add_value(digits_, x);  // NaN or Inf: adds nothing
            return;
        }
        double term[Terms], lost = x;
        bool finite = true;
        for (int j = 0; j < Terms; ++j) {
            two_sum(term_[j], lost, term[j], lost);
            finite &= fabs(term[j]) <= DBL_MAX;
        }
        if (finite && fabs(lost) <= DBL_MAX) {  // exact: the terms and lost add up to the old terms and x
            for (int j = 0; j < Terms; ++j) term_[j] = term[j];
            if (lost != 0) exact::add_value(digits_, lost);
            return;
        }
        // An overflow: the expansion into the digits, x starts the next.
        for (int j = 0; j < Terms; ++j) {
            if (term_[j] != 0) exact::add_value(digits_, term_[j]);
            term_[j] = 0;
        }
        term_[0] = x;
    }
    __host__ __device__ void end_round() {}
    __host__ __device__ double term(int j) const { return term_[j]; }
    __host__ __device__ unsigned specials() const { return specials_; }

private:
    WarpDigits digits_;
    double term_[Terms] = {}, saved_[Terms] = {};
    unsigned long long missed_ = 0;
    unsigned specials_ = 0;
};

// One trip of a thread: the first `valid` of v (all but in the last block's part of a tile) through
// the thread sum's fast path (begin_trip, add_fast, end_trip), and again through its slow path
// (redo) when any value missed the fast one.
template <class ThreadSum>
__device__ void add_trip(ThreadSum& sum, const uint4 (&v)[kLoadsInFlight], int valid) {
    static_assert(kLoadsInFlight == 4, "the slow path below names the four vectors");
    sum.begin_trip(v);
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k)
        if (k < valid) sum.add_fast(v[k]);
    if (!sum.end_trip()) [[unlikely]]
#pragma unroll 1
        for (int k = 0; k < valid; ++k)  // one copy of the slow path, v still in registers
            sum.redo(k == 0 ? v[0] : k == 1 ? v[1] : k == 2 ? v[2] : v[3]);
}

// Step 1, the loop every type shares: this thread's part of in[0..n), partitioned as
// even_share_agent.cuh's: each block a contiguous run of whole tiles of kLoadsInFlight vectors a
// thread, a trip a tile, and a round's end every kTripsPerRound<In> trips. Blocks with one tile fewer
// finish early and free their slot for the next call while the others read. The last block also
// takes the vectors after the last whole tile, loaded together; head and tail values, one a thread,
// go to add_one.
template <class In, class ThreadSum>
__device__ void add_part(const In* __restrict__ in, std::size_t n, ThreadSum& sum) {
    const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const AlignedBody<In> aligned(in, n);
    if (thread < aligned.head) sum.add_one(widen<ExactFormat<In>>(in[thread]));

    const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + aligned.head);
    const std::size_t vectors = aligned.vectors, step = blockDim.x, tile = step * kLoadsInFlight;
    const std::size_t tiles = vectors / tile, block = blockIdx.x, grid = gridDim.x;
    const std::size_t base = tiles / grid, extra = tiles % grid;
    std::size_t count = base + (block < extra ? 1 : 0);
    const uint4* __restrict__ p = body + (block * base + (block < extra ? block : extra)) * tile + threadIdx.x;
    while (count != 0) {
        for (int trip = 0; trip < kTripsPerRound<In> && count != 0; ++trip, --count, p += tile) {
            uint4 v[kLoadsInFlight];
#pragma unroll
            for (int k = 0; k < kLoadsInFlight; ++k) v[k] = p[k * step];
            add_trip(sum, v, kLoadsInFlight);
        }
        sum.end_round();
    }
    if (block == grid - 1) {
        const std::size_t rest = tiles * tile + threadIdx.x;
        uint4 v[kLoadsInFlight] = {};
        int valid = 0;
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k)
            if (rest + k * step < vectors) {
                v[k] = body[rest + k * step];
                ++valid;
            }
        if (valid != 0) add_trip(sum, v, valid);
    }
    const std::size_t tail = aligned.tail() + thread;
    if (tail < n) sum.add_one(widen<ExactFormat<In>>(in[tail]));
}

// A thread's first trip starts its window at the trip's largest value: most values then take the
// fast path already. An infinity counts as FLT_MAX: where the window starts decides only how many
// values take the fast path, never the sum.
template <class In, int Vectors>
__device__ void start_at_largest(FloatThreadSum& sum, const uint4 (&v)[Vectors]) {
    if (sum.started()) [[likely]] return;
    float largest = 0.0f;
#pragma unroll
    for (int k = 0; k < Vectors; ++k) largest = fmaxf(largest, largest_magnitude<In>(v[k]));
    sum.start(fminf(largest, FLT_MAX));
}

// A FloatThreadSum's trips of floats: the slow path judges each float by the window the fast one
// used.
class FloatTrips {
public:
    __device__ explicit FloatTrips(FloatThreadSum& sum) : sum_(sum) {}

    template <int Vectors>
    __device__ void begin_trip(const uint4 (&v)[Vectors]) {
        start_at_largest<float>(sum_, v);
        used_ = sum_.window();
        inside_ = true;
    }
    __device__ void add_fast(uint4 v) { inside_ &= sum_.add_inside(float_quad<float, 0>(v)); }
    __device__ bool end_trip() const { return inside_; }
    __device__ void redo(uint4 v) { sum_.add_missed(float_quad<float, 0>(v), used_); }
    __device__ void add_one(float x) { sum_.add(x); }
    __device__ void end_round() { sum_.end_round(); }

private:
    FloatThreadSum& sum_;
    exact::Window used_;
    bool inside_ = true;
};

// A FloatThreadSum's trips of bfloat16: all of a trip's values in the bfloat16 window, or the
// whole trip again one value at a time.
class BfloatTrips {
public:
    __device__ explicit BfloatTrips(FloatThreadSum& sum) : sum_(sum) {}

    template <int Vectors>
    __device__ void begin_trip(const uint4 (&v)[Vectors]) {
        start_at_largest<__nv_bfloat16>(sum_, v);
        total_ = 0;
        signed_min_ = 0x7fff7fffu;
        unsigned_max_ = 0;
    }
    __device__ void add_fast(uint4 v) {
        const BfloatWindow& window = sum_.bfloat_window();
        const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (unsigned word : words) total_ += window.integer(__uint_as_float(word << 16)) + window.integer(__uint_as_float(word & 0xffff0000u));
        const unsigned k0 = BfloatWindow::key(v.x), k1 = BfloatWindow::key(v.y), k2 = BfloatWindow::key(v.z), k3 = BfloatWindow::key(v.w);
        signed_min_ = __vimin3_s16x2(__vimin3_s16x2(signed_min_, k0, k1), k2, k3);
        unsigned_max_ = __vimax3_u16x2(__vimax3_u16x2(unsigned_max_, k0, k1), k2, k3);
    }
    __device__ bool end_trip() {
        if (!sum_.bfloat_window().holds(signed_min_, unsigned_max_)) return false;
        sum_.add_bfloat_integers(total_);
        return true;
    }
    __device__ void redo(uint4 v) {
        const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (unsigned word : words) {
            sum_.add(__uint_as_float(word << 16));
            sum_.add(__uint_as_float(word & 0xffff0000u));
        }
    }
    __device__ void add_one(float x) { sum_.add(x); }
    __device__ void end_round() { sum_.end_round(); }

private:
    FloatThreadSum& sum_;
    int total_ = 0;  // below 2^5 x 2^22 a trip
    unsigned signed_min_ = 0, unsigned_max_ = 0;
};

__device__ inline ThreadTotal add_thread_part(const float* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    FloatThreadSum sum(digits);
    FloatTrips trips(sum);
    add_part(in, n, trips);
    return sum.finish();
}

__device__ inline ThreadTotal add_thread_part(const __nv_bfloat16* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    FloatThreadSum sum(digits);
    BfloatTrips trips(sum);
    add_part(in, n, trips);
    return sum.finish();
}

__device__ inline ThreadTotal add_thread_part(const __half* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    HalfThreadSum sum(digits);
    add_part(in, n, sum);
    return sum.finish();
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

__device__ inline ThreadTotal add_thread_part(const double* __restrict__ in, std::size_t n, WarpDigits digits) {
    for (int k = threadIdx.x % 32; k < exact::kDigits<double>; k += 32) digits.word(k) = 0;
    __syncwarp();
    DoubleThreadSum<kExpansionTerms> sum(digits);
    add_part(in, n, sum);
    __syncwarp();  // every lane's atomics are in
#pragma unroll
    for (int j = 0; j < kExpansionTerms; ++j) add_warp_doubles(digits, sum.term(j));
    __syncwarp();
    if (threadIdx.x % 32 == 0) {  // exact::normalize's carries, in place
        for (int k = 0; k + 1 < exact::kDigits<double>; ++k) {
            const std::int64_t carry = digits.word(k) >> exact::kDigitBits;
            digits.word(k) &= 0xffffffffll;
            digits.word(k + 1) += carry;
        }
    }
    return {.specials = sum.specials(), .digits_used = true};
}

// What a block's threads share between steps 2 and 3.
template <class T, int Warps>
struct BlockScratch {
    long long warp_term[Warps][kTerms];
    int warp_lsb[Warps];
    unsigned warp_specials[Warps];
    long long total[exact::kDigits<T>];  // the block's digits; in the last block, the grid's
    unsigned specials;
    bool last;
};

template <class T, int Warps>
__device__ exact::Sum<T> sum_of(const BlockScratch<T, Warps>& scratch) {
    exact::Sum<T> sum;
    for (int k = 0; k < exact::kDigits<T>; ++k) sum.digits[k] = scratch.total[k];
    sum.specials = scratch.specials;
    return sum;
}

// The exact sum of in[0..n) into `grid`; the last block hands the total to finish(const
// exact::Sum<ExactFormat<In>>&) and leaves `grid` zeroed. Policy::kBlockThreads threads a block,
// shared_bytes<In>(Policy::kBlockThreads) of dynamic shared memory; at most as many blocks
// as are resident at once (a programmatic launch waits for the grid before it, step 3).
template <class In, class Policy, class Finish>
__global__ void __launch_bounds__(Policy::kBlockThreads, Policy::kMinBlocksPerSm)
exact_sum(const In* __restrict__ in, std::size_t n, GridTotal<ExactFormat<In>>* grid, Finish finish) {
    using T = ExactFormat<In>;
    constexpr int B = Policy::kBlockThreads, kWarps = B / 32, kDigits = exact::kDigits<T>;
    // The next call may be scheduled from here: it loads and sums its input, and touches nothing
    // global before its pdl_wait() below (cuda/agents/single_pass.cuh has the argument).
    pdl_launch_dependents();
    extern __shared__ std::int64_t digits[];
    __shared__ BlockScratch<T, kWarps> scratch;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    constexpr int kColumns = digit_columns<In>(B);
    [[maybe_unused]] const SharedDigits<T> mine{digits + threadIdx.x, kColumns};  // floats and 16-bit types
    ThreadTotal own;
    int top = kNoWindow;  // doubles have no window: their warp's digits hold everything
    if constexpr (std::is_same_v<In, double>) {
        own = add_thread_part(in, n, WarpDigits{digits + warp, kColumns});
    } else {
        own = add_thread_part(in, n, mine);
        // Step 2. The warp's highest window: a lane below it folds its halves into its digits.
        top = __reduce_max_sync(kFullWarp, own.lsb);
        if (own.lsb != top && (own.term[0] | own.term[1] | own.term[2] | own.term[3]) != 0) {
            if (!own.digits_used) mine.clear();
            add_terms(mine, own.term, own.lsb);
            exact::normalize(mine);
            own.digits_used = true;
            for (long long& term : own.term) term = 0;
        }
    }
    // A lane's low halves are below 2^49, its high halves' magnitudes below 2^47: the warp's sums
    // below 2^54. A window's two halves are summed only where a lane of the warp has them.
    long long term[kTerms] = {};
#pragma unroll
    for (int j = 0; j < kTerms; j += 2) {
        if (__any_sync(kFullWarp, (own.term[j] | own.term[j + 1]) != 0)) {
            term[j] = warp_sum_int64(own.term[j]);
            term[j + 1] = warp_sum_int64(own.term[j + 1]);
        }
    }
    const unsigned specials = __reduce_or_sync(kFullWarp, own.specials);
    if (lane == 0) {
        scratch.warp_lsb[warp] = top;
        for (int j = 0; j < kTerms; ++j) scratch.warp_term[warp][j] = term[j];
        scratch.warp_specials[warp] = specials;
    }
    const bool block_digits = __syncthreads_or(own.digits_used);
    if constexpr (!std::is_same_v<In, double>) {
        if (block_digits) {  // the same in every thread: the columns never written are zeroed for the pass below
            if (!own.digits_used) mine.clear();
            __syncthreads();
        }
    }
    // Digits warp, warp + kWarps, ... of the block, summed side by side: a piece of each warp term
    // (below 2^32 each) and, if used, each thread's normalized digit (below 2^32): below 2^43 for any
    // block size.
    constexpr int kDigitsPerWarp = (kDigits + kWarps - 1) / kWarps;
    long long block_digit[kDigitsPerWarp];
#pragma unroll
    for (int j = 0; j < kDigitsPerWarp; ++j) {
        const int d = warp + j * kWarps;
        long long s = 0;
        for (int q = lane; q < kWarps * kTerms; q += 32)
            s += digit_piece<T>(scratch.warp_term[q / kTerms][q % kTerms],
                                scratch.warp_lsb[q / kTerms] + term_shift(q % kTerms) - exact::kUnitExponent<T>, d);
        if (block_digits && d < kDigits)
            for (int t = lane; t < kColumns; t += 32) s += digits[d * kColumns + t];
        block_digit[j] = s;
    }
#pragma unroll
    for (int j = 0; j < kDigitsPerWarp; ++j) {
        const int d = warp + j * kWarps;
        const long long s = warp_sum_int64(block_digit[j]);
        if (lane == 0 && d < kDigits) scratch.total[d] = s;
    }
    if (threadIdx.x == 0) {
        unsigned all = 0;
        for (int w = 0; w < kWarps; ++w) all |= scratch.warp_specials[w];
        scratch.specials = all;
    }
    __syncthreads();

    // Step 3. Everything below touches what the call before on the stream may still be using: the
    // grid's total, the ticket, Finish's output.
    pdl_wait();
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) finish(sum_of(scratch));
        return;
    }
    const unsigned stripe = blockIdx.x % kStripes;
    for (int d = threadIdx.x; d < kDigits; d += B)
        if (scratch.total[d] != 0) atomicAdd(&grid->digit[stripe][d], static_cast<unsigned long long>(scratch.total[d]));
    if (threadIdx.x == 0 && scratch.specials != 0) atomicOr(&grid->specials[stripe], scratch.specials);
    if (threadIdx.x < kDigits) __threadfence();  // this thread's atomics are seen before the block counts itself done
    __syncthreads();
    if (threadIdx.x == 0) {
        // atomicInc wraps: the block that finds gridDim.x - 1 stores 0, ready for the next launch.
        const bool drew_last = atomicInc(&grid->ticket, gridDim.x - 1) == gridDim.x - 1;
        if (drew_last) __threadfence();  // every other block's atomics are read after its ticket
        scratch.last = drew_last;
    }
    __syncthreads();
    if (!scratch.last) return;
    // The stripes' sum, a warp per digit, lane s reading stripe s (from L2: other SMs added to it),
    // every load issued before the first is summed, and zeros left behind. Each stripe digit is a
    // sum of blocks' digits: below 2^43 x blocks.
    static_assert(kStripes == 32, "a lane per stripe");
    long long stripe_digit[kDigitsPerWarp];
#pragma unroll
    for (int j = 0; j < kDigitsPerWarp; ++j) {
        const int d = warp + j * kWarps;
        stripe_digit[j] = d < kDigits ? static_cast<long long>(__ldcg(&grid->digit[lane][d])) : 0;
    }
    const unsigned stripe_specials = warp == 0 ? __ldcg(&grid->specials[lane]) : 0u;
#pragma unroll
    for (int j = 0; j < kDigitsPerWarp; ++j) {
        const int d = warp + j * kWarps;
        if (d >= kDigits) break;  // the same for the whole warp
        grid->digit[lane][d] = 0;
        const long long s = warp_sum_int64(stripe_digit[j]);
        if (lane == 0) scratch.total[d] = s;
    }
    if (warp == 0) {
        grid->specials[lane] = 0;
        const unsigned s = __reduce_or_sync(kFullWarp, stripe_specials);
        if (lane == 0) scratch.specials = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) finish(sum_of(scratch));
}

// exact_sum<In, Policy, Finish> for n elements: its launch sizes and its grid total, zeroed once here
// and left zeroed by every launch. One enqueue at a time per object (calls on one stream): two
// launches in flight at once would share the total.
template <class In, class Finish, class Policy = typename ExactTuning<In>::Policy>
class ExactLaunch {
public:
    using T = ExactFormat<In>;

    explicit ExactLaunch(std::size_t n)
        : n_(n), programmatic_(kernel_has_griddepcontrol(exact_sum<In, Policy, Finish>)), grid_total_(1) {
        grid_ = overlapping_grid(n, elements_per_block_pass(Policy::kBlockThreads, kLoadsInFlight, kVectorLanes<In>),
                                 resident_blocks(exact_sum<In, Policy, Finish>, Policy::kBlockThreads, shared_bytes<In>(Policy::kBlockThreads)),
                                 Policy::kShortCallPasses);
        // Zeros, complete before any launch on the backend's (non-blocking) stream.
        SHOOTOUT_CUDA_CHECK(cudaMemset(grid_total_.get(), 0, sizeof(GridTotal<T>)));
        SHOOTOUT_CUDA_CHECK(cudaDeviceSynchronize());
    }

    // Enqueues the sum of in[0..n) on `stream`; with n = 0, reads nothing and finishes a zero sum.
    // A programmatic launch (programmatic_launch.cuh): `in` must not be written by the kernel
    // enqueued just before on the stream.
    void enqueue(const In* in, Finish finish, cudaStream_t stream) {
        launch(exact_sum<In, Policy, Finish>, grid_, Policy::kBlockThreads, shared_bytes<In>(Policy::kBlockThreads), stream, programmatic_, in, n_,
               grid_total_.get(), finish);
    }

    unsigned grid() const { return grid_; }

private:
    std::size_t n_;
    unsigned grid_ = 1;
    bool programmatic_;
    DeviceBuffer<GridTotal<T>> grid_total_;
};

}  // namespace shootout::cuda::exact_agent
