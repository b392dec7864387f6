// Thread level of cuda/exact for doubles: a floating-point expansion of a few doubles per thread in
// registers (DoubleThreadSum), a trip's doubles added by TwoSums; a trip whose last error is not zero
// is redone one double at a time, what the expansion cannot hold going to its warp's digits in shared
// memory by atomics (WarpDigits, exact_digits.cuh). The rule: registers hold the thread's sum exactly
// or the trip is redone; nothing is rounded.
#pragma once

#include <cuda_runtime.h>

#include <cfloat>

#include "exact/exact_accumulator.hpp"
#include "cuda/primitives/exact_digits.cuh"

namespace shootout::cuda::exact_agent {

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

}  // namespace shootout::cuda::exact_agent
