// The per-thread part of a bandwidth-bound reduction, partitioned as CUB's reduce agent does ("even
// share"): each block reads one contiguous run of whole tiles instead of striding over the grid.
//
// A tile is BlockThreads x LoadsInFlight 16-byte vectors of any element type (element_vector.cuh);
// thread t takes vectors t, t + BlockThreads, ... of it, so each of the LoadsInFlight loads is
// coalesced across the block, and all of them are issued before the first is added. Tiles are dealt
// out as evenly as whole tiles allow, in block order: the first (tiles % grid) blocks get one more.
// The last block also takes what is not a whole tile: the vectors after the last tile and the
// unaligned head and tail elements. Which elements a thread takes, and the order it adds them in,
// depend on n, the grid and the block alone. Every thread of a block makes the same number of trips
// over whole tiles, so their vectors are added with the whole warp where the accumulator can
// (add_converged: the tensor cores).
//
// Why offer it beside grid_stride_partial: under grid-stride, the blocks of one pass read one
// contiguous window between them, each SM a few KiB of it, and every SM's next pass jumps a whole
// window ahead; here each SM streams its own run of megabytes, so its consecutive loads go to
// consecutive addresses (open DRAM pages, fewer TLB entries). Whether HBM rewards that is for the
// sweep (tools/single_pass_sweep.cu) to say.
#pragma once

#include <cstddef>

#include "cuda/primitives/accumulators.cuh"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/stream_load.cuh"

namespace shootout::cuda {

// Vectors (16 bytes each) in one tile.
template <int BlockThreads, int LoadsInFlight>
inline constexpr std::size_t kEvenShareTile = std::size_t{BlockThreads} * static_cast<std::size_t>(LoadsInFlight);

// This thread's share of in[0..n), accumulated into a fresh state. Launched with BlockThreads threads
// per block.
template <class Acc, int BlockThreads, int LoadsInFlight, LoadHint Hint = LoadHint::ldg, class In>
__device__ typename Acc::State even_share_partial(const In* __restrict__ in, std::size_t n) {
    using Value = typename Acc::Value;
    constexpr std::size_t kTile = kEvenShareTile<BlockThreads, LoadsInFlight>;
    typename Acc::State s = Acc::zero();

    const AlignedBody<In> aligned(in, n);
    const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + aligned.head);
    const std::size_t vectors = aligned.vectors;

    const std::size_t tiles = vectors / kTile;
    const std::size_t block = blockIdx.x, grid = gridDim.x;
    const std::size_t base = tiles / grid, extra = tiles % grid;
    const std::size_t first = block * base + (block < extra ? block : extra);
    const std::size_t count = base + (block < extra ? 1 : 0);

    const uint4* __restrict__ p = body + first * kTile + threadIdx.x;
    for (std::size_t t = 0; t < count; ++t, p += kTile) {
        uint4 v[LoadsInFlight];
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k) v[k] = load_stream<Hint>(p + k * BlockThreads);
        add_converged<Acc, In>(s, v);
    }

    if (block == grid - 1) {
        // Fewer than kTile vectors: at most LoadsInFlight per thread, all issued before the first add.
        // Skipped lanes are not added as zeros: adding 0 is not a no-op for a compensated state.
        const std::size_t rest = tiles * kTile + threadIdx.x;
        uint4 v[LoadsInFlight];
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k)
            if (rest + k * BlockThreads < vectors) v[k] = load_stream<Hint>(body + rest + k * BlockThreads);
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k)
            if (rest + k * BlockThreads < vectors) add_vector<Acc, In>(s, v[k]);
        if (threadIdx.x < aligned.head) Acc::add(s, widen<Value>(__ldg(in + threadIdx.x)));
        const std::size_t tail = aligned.tail() + threadIdx.x;
        if (tail < n) Acc::add(s, widen<Value>(__ldg(in + tail)));
    }
    return s;
}

}  // namespace shootout::cuda
