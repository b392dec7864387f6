// The per-thread part of a bandwidth-bound reduction: a grid-stride loop of 16-byte loads, several in
// flight per thread, over the 16-byte-aligned body of the input; the unaligned head and the tail are
// one element per thread. Any element type of element_vector.cuh.
#pragma once

#include <cstddef>

#include "cuda/primitives/accumulators.cuh"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/stream_load.cuh"

namespace shootout::cuda {

// Loads each thread issues before it uses the first: enough bytes in flight per SM to cover the
// memory latency at full bandwidth (HBM needs tens of KiB per SM).
constexpr int kLoadsInFlight = 4;

// This thread's share of in[0..n), accumulated into a fresh state. `LoadsInFlight` 16-byte loads are
// issued before the first is added; which elements a thread takes depends on the grid and block
// sizes alone, and each thread adds them in the same order on every call. Hint: how the 16-byte loads
// are issued (stream_load.cuh).
template <class Acc, int LoadsInFlight = kLoadsInFlight, LoadHint Hint = LoadHint::ldg, class In>
__device__ typename Acc::State grid_stride_partial(const In* __restrict__ in, std::size_t n) {
    using Value = typename Acc::Value;
    const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const std::size_t threads = gridDim.x * std::size_t{blockDim.x};
    typename Acc::State s = Acc::zero();

    const AlignedBody<In> aligned(in, n);
    if (thread < aligned.head) Acc::add(s, widen<Value>(__ldg(in + thread)));

    const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + aligned.head);
    const std::size_t vectors = aligned.vectors;
    std::size_t i = thread;
    for (; i + (LoadsInFlight - 1) * threads < vectors; i += LoadsInFlight * threads) {
        uint4 v[LoadsInFlight];
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k) v[k] = load_stream<Hint>(body + i + k * threads);
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k) add_vector<Acc, In>(s, v[k]);
    }
    for (; i < vectors; i += threads) add_vector<Acc, In>(s, load_stream<Hint>(body + i));

    const std::size_t tail = aligned.tail() + thread;
    if (tail < n) Acc::add(s, widen<Value>(__ldg(in + tail)));
    return s;
}

// Elements one block takes per pass of the grid-stride loop, `lanes` elements a 16-byte load: more
// blocks than covering_blocks(n, this) would find nothing to load.
constexpr std::size_t elements_per_block_pass(unsigned block, int loads_in_flight = kLoadsInFlight, int lanes = 4) {
    return std::size_t{block} * static_cast<std::size_t>(lanes) * static_cast<std::size_t>(loads_in_flight);
}

}  // namespace shootout::cuda
