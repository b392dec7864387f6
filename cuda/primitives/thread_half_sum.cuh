// Thread level of cuda/exact for float16: the format fits one fixed window, so a thread adds each
// value as an int64 in registers (HalfThreadSum), with one branch a trip for NaN and Inf, which go to
// the thread's digits (exact_digits.cuh). The rule: no window to start or move, no comparison per value.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "exact/exact_accumulator.hpp"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/exact_digits.cuh"

namespace shootout::cuda::exact_agent {

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

}  // namespace shootout::cuda::exact_agent
