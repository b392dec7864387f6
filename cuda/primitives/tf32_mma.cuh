// TF32 on the tensor cores, for sums: a float rounded to one TF32 term or split into two, and one
// warp-wide MMA that adds 128 such terms against a column of ones (sm_80 and later).
//
// TF32 is a float's sign, 8-bit exponent and top 10 fraction bits (11 significant bits), held in a
// 32-bit register whose low 13 bits are zero. An MMA multiplies TF32 matrices exactly and adds the
// products into float accumulators.
#pragma once

#include <cuda_runtime.h>

namespace shootout::cuda {

// x rounded to TF32, to nearest, ties away from zero (cvt.rna): within 2^-11 |x|. Infinities and
// NaN stay what they are; a float within half a TF32 ulp of 2^128 rounds to infinity.
__device__ __forceinline__ float tf32_round(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned bits;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
    return __uint_as_float(bits);
#else
    __trap();  // the tensor-core backends list themselves unavailable without sm_80 code
    return x;
#endif
}

// x as two TF32 terms, hi + lo: hi its top 11 significant bits (truncated: exact, never overflows),
// lo the rest (exact in float, 13 bits) rounded to TF32. hi + lo is exact in float and within 2 ulps
// of x (2^-22 |x|), but for floats within 2 ulps of 2^128, where it rounds up to infinity. An
// infinity is hi alone (its rest would be NaN); NaN stays NaN.
struct Tf32Pair {
    float hi, lo;
};
__device__ __forceinline__ Tf32Pair tf32_split(float x) {
    const float hi = __uint_as_float(__float_as_uint(x) & 0xffffe000u);
    return {hi, isinf(x) ? 0.0f : tf32_round(x - hi)};
}

// One warp's m16n8k8 MMA with TF32 inputs and float accumulators, D = A B + C, the matrices in the
// PTX fragments of that shape: lane 4 g + t (g = lane / 4, t = lane % 4) holds
//   a: A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4]       (A 16 x 8)
//   B[t][g], B[t + 4][g]                                         (B 8 x 8)
//   c, d: C[g][2t], C[g][2t + 1], C[g + 8][2t], C[g + 8][2t + 1] (C, D 16 x 8)
// B here is the ones vector as its first column, zeros elsewhere: column 0 of D is C's plus the row
// sums of A, and lane 4 g (t = 0) holds rows g and g + 8 of it in d.x and d.z: the sum of the a.x
// and a.z (row g) and a.y and a.w (row g + 8) of lanes 4 g .. 4 g + 3. The other columns are
// not sums (an infinite a times a zero is NaN there) and are never read. Every lane of the warp
// must execute it together.
__device__ __forceinline__ float4 mma_ones_column(float4 a, float4 c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned one = threadIdx.x % 32 / 4 == 0 ? __float_as_uint(1.0f) : 0u;  // B[t][g], B[t + 4][g]: g == 0
    float4 d;
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};"
        : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
        : "r"(__float_as_uint(a.x)), "r"(__float_as_uint(a.y)), "r"(__float_as_uint(a.z)), "r"(__float_as_uint(a.w)),
          "r"(one), "r"(one), "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w));
    return d;
#else
    __trap();  // the tensor-core backends list themselves unavailable without sm_80 code
    return a;
#endif
}

}  // namespace shootout::cuda
