// Thread level of cuda/exact for floats and bfloat16 (every bfloat16 a float): a thread's exact sum
// in registers through a fixed-point window, the values outside it into the thread's digits
// (exact_digits.cuh). A float inside the window costs a multiply, a conversion to int64 and a 64-bit
// add, without a branch, and so does a float in the 30 binades below it, at that window's scale into
// a second total; the thread's first trip starts the window at its largest value. Once a trip
// one branch takes the others, if any: those in the window just below it into a second register
// total the same way; the rest one at a time into the digits: a float above the window (which also
// moves the window up to it), floats below both windows, NaN and Inf. Every round the register
// totals go carry-save into two 64-bit halves per window, still in registers; the digits take them
// only when the window moves (and every kRoundsPerNormalize rounds). bfloat16: a trip whose values
// all lie in the float window's top 15 binades adds them as int32 at a coarser lsb, two
// instructions a value (BfloatWindow); any other trip goes through the float path four values at a
// time, as a trip of floats does. The trip classes (FloatTrips, BfloatTrips) are what the agent's
// loop drives.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cfloat>

#include "exact/exact_accumulator.hpp"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/exact_digits.cuh"

namespace shootout::cuda::exact_agent {

// The largest |x| of a vector's floats but NaN (fmaxf passes over it): one FMNMX a float.
__device__ inline float largest_magnitude(float4 v) { return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))); }
template <class In>
__device__ float largest_magnitude(uint4 v) {
    if constexpr (kVectorLanes<In> == 4) return largest_magnitude(float_quad<In, 0>(v));
    else return fmaxf(largest_magnitude(float_quad<In, 0>(v)), largest_magnitude(float_quad<In, 1>(v)));
}

// bfloat16's fast window: the float window's top 15 binades (exact::BfloatWindow), as int32.
using BfloatWindow = exact::BfloatWindow<kWindowTopBit>;

// The magnitudes a trip's fast path takes, [lo, hi): the window's and the window below's.
struct FastRange {
    float lo, hi;
    __host__ __device__ bool contains(float magnitude) const { return magnitude >= lo && magnitude < hi; }
};

// The fast path takes the window's floats and the window below's, each converted at its window's
// scale and added to that window's total (predicated, no branch): data spanning up to 60 binades
// (ill:1e16, cancel) stays on it, at 14.1 SASS instructions a float against the window alone's 7.0.
// H100, batched, against single-pass: ill:1e16 f32 0.67 -> 0.90 at 2^24, 0.79 -> 0.98 at 2^28, bf16
// 0.41 -> 0.59 and 0.45 -> 0.71; uniform within the run's noise (results/tuning/exact-hard-inputs/NOTES.md)
class FloatThreadSum {
public:
    // No window until the thread's first values start it (start(), or add_outside() for one value).
    // The digits are zeroed on first use: most threads never write them.
    __host__ __device__ explicit FloatThreadSum(SharedDigits<float> digits) : digits_(digits) {
        window_ = {.lo = exact::float_from_bits(0x7f800000u), .hi = 0.0f, .scale = 0.0, .lsb = kNoWindow};  // holds nothing
    }

    // The main loop's two steps for a trip's floats: every float the fast path takes, returning
    // whether all were; then, only if not, the others, judged by the range the first step used.
    __host__ __device__ bool add_inside(float4 v) {
        const unsigned all = static_cast<unsigned>(add_fast(v.x)) & static_cast<unsigned>(add_fast(v.y)) &
                             static_cast<unsigned>(add_fast(v.z)) & static_cast<unsigned>(add_fast(v.w));  // no branches
        return all != 0;
    }
    __host__ __device__ void add_missed(float4 v, const FastRange& used) {
        add_missed(v.x, used);
        add_missed(v.y, used);
        add_missed(v.z, used);
        add_missed(v.w, used);
    }
    __host__ __device__ FastRange fast_range() const { return {.lo = below_lo_, .hi = window_.hi}; }
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
        if (!add_fast(x)) add_outside(x);
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
    // The fast path's float, into the window or the window below; whether it was. Without a branch:
    // a float not taken is scaled by 0 (NaN and Inf convert to 0 on the device), the others at their
    // window's scale, exactly; the integer goes to one total.
    __host__ __device__ bool add_fast(float x) {
        const float magnitude = fabsf(x);
        const bool taken = magnitude >= below_lo_ && magnitude < window_.hi, upper = magnitude >= window_.lo;
        const long long integer = static_cast<long long>(x * (taken ? (upper ? scale_ : below_scale_) : 0.0f));
        const long long to_window = upper ? integer : 0;
        total_ += to_window;
        total_below_ += integer - to_window;
        return taken;
    }
    __host__ __device__ void add_missed(float x, const FastRange& used) {
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
        if (magnitude < window_.lo && magnitude >= below_lo_) {
            total_below_ += static_cast<long long>(x * below_scale_);  // exact
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
        const bool below = window_.lsb - kWindowBinades >= kWindowLowestLsb;  // its scale, 2^(30 - lsb), a float too
        below_lo_ = below ? window_.lo * 0x1p-30f : window_.lo;
        below_scale_ = below ? scale_ * 0x1p30f : scale_;
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
    float below_lo_ = exact::float_from_bits(0x7f800000u), below_scale_ = 0.0f;  // the window below: [below_lo_, lo), or empty
    long long total_ = 0, total_below_ = 0;  // the two windows' integers added this round
    long long low_ = 0, high_ = 0, below_low_ = 0, below_high_ = 0;  // earlier rounds', carry-save
    unsigned specials_ = 0, rounds_ = 0;
    bool digits_used_ = false;
};

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

// A FloatThreadSum's trips of floats: the slow path judges each float by the range the fast one
// used.
class FloatTrips {
public:
    __device__ explicit FloatTrips(FloatThreadSum& sum) : sum_(sum) {}

    template <int Vectors>
    __device__ void begin_trip(const uint4 (&v)[Vectors]) {
        start_at_largest<float>(sum_, v);
        used_ = sum_.fast_range();
        inside_ = true;
    }
    __device__ void add_fast(uint4 v) { inside_ &= sum_.add_inside(float_quad<float, 0>(v)); }
    __device__ bool end_trip() const { return inside_; }
    __device__ void redo(uint4 v) { sum_.add_missed(float_quad<float, 0>(v), used_); }
    __device__ void add_one(float x) { sum_.add(x); }
    __device__ void end_round() { sum_.end_round(); }

private:
    FloatThreadSum& sum_;
    FastRange used_;
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
    // A vector's eight values as two quads of floats, each through the float path's fast step and
    // then its missed values, judged by the range that step used (the window may move in between).
    __device__ void redo(uint4 v) {
        add_quad(float_quad<__nv_bfloat16, 0>(v));
        add_quad(float_quad<__nv_bfloat16, 1>(v));
    }
    __device__ void add_one(float x) { sum_.add(x); }
    __device__ void end_round() { sum_.end_round(); }

private:
    __device__ void add_quad(float4 q) {
        const FastRange used = sum_.fast_range();
        if (!sum_.add_inside(q)) sum_.add_missed(q, used);
    }

    FloatThreadSum& sum_;
    int total_ = 0;  // below 2^5 x 2^22 a trip
    unsigned signed_min_ = 0, unsigned_max_ = 0;
};

}  // namespace shootout::cuda::exact_agent
