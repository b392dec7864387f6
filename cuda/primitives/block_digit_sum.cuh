// Block level of cuda/exact: the block's exact total as superaccumulator digits, from its warps'
// terms (warp_digit_sum.cuh) and, where any thread used them, its threads' digit columns, beside
// block_reduce.cuh. Warp w computes digits w, w + warps, ...: for each, a lane's part
// (block_digit_part: its share of the warps' terms cut into 32-bit pieces at their positions, and
// of the threads' normalized digits), then one warp_sum_int64 of the parts. The rule: integer sums
// only, every digit's sum below 2^43 for any block size.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "exact/exact_accumulator.hpp"
#include "cuda/primitives/exact_digits.cuh"

namespace shootout::cuda::exact_agent {

// What a block's threads share between its warps' sums and the grid's total: the warps' terms in,
// the block's digits out (in the last block, the grid's), and the grid step's flag.
template <class T, int Warps>
struct BlockScratch {
    long long warp_term[Warps][kTerms];
    int warp_lsb[Warps];
    unsigned warp_specials[Warps];
    long long total[exact::kDigits<T>];  // the block's digits; in the last block, the grid's
    unsigned specials;
    bool last;
};

// Digits of T each warp of Warps computes (warp w: digits w, w + Warps, ...).
template <class T, int Warps>
inline constexpr int kDigitsPerWarp = (exact::kDigits<T> + Warps - 1) / Warps;

// A lane's part of the block's digit d: the pieces at digit d of the warps' terms q = lane, lane +
// 32, ... (each below 2^32), and, if with_columns, of the Columns columns of digits t = lane, lane +
// 32, ... (digit d of column t at word d * DigitStride + t * ColumnStride; each below 2^33). The
// warp's sum of the parts (warp_sum_int64) is the block's digit d, below 2^43 for any block size.
template <class T, int Warps, int Columns, int DigitStride, int ColumnStride>
__device__ long long block_digit_part(const BlockScratch<T, Warps>& scratch, const std::int64_t* columns, bool with_columns, int d,
                                      unsigned lane) {
    long long s = 0;
    for (int q = lane; q < Warps * kTerms; q += 32)
        s += digit_piece<T>(scratch.warp_term[q / kTerms][q % kTerms],
                            scratch.warp_lsb[q / kTerms] + term_shift(q % kTerms) - exact::kUnitExponent<T>, d);
    if (with_columns && d < exact::kDigits<T>)
        for (int t = lane; t < Columns; t += 32) s += columns[d * DigitStride + t * ColumnStride];
    return s;
}

// The OR of the warps' specials: the block's.
template <class T, int Warps>
__device__ unsigned block_specials(const BlockScratch<T, Warps>& scratch) {
    unsigned all = 0;
    for (int w = 0; w < Warps; ++w) all |= scratch.warp_specials[w];
    return all;
}

}  // namespace shootout::cuda::exact_agent
