// The per-thread part of a bandwidth-bound reduction: a grid-stride loop of 16-byte loads, several in
// flight per thread, over the 16-byte-aligned body of the input; the unaligned head and the tail are
// one element per thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/primitives/accumulators.cuh"
#include "gpu/primitives/stream_load.cuh"

namespace shootout::cuda {

// Loads each thread issues before it uses the first: enough bytes in flight per SM to cover the
// memory latency at full bandwidth (HBM needs tens of KiB per SM).
constexpr int kLoadsInFlight = 4;

// This thread's share of in[0..n), accumulated into a fresh state. `LoadsInFlight` 16-byte loads are
// issued before the first is added; which elements a thread takes depends on the grid and block
// sizes alone, and each thread adds them in the same order on every call. Hint: how the 16-byte loads
// are issued (stream_load.cuh).
template <class Acc, int LoadsInFlight = kLoadsInFlight, LoadHint Hint = LoadHint::ldg>
__device__ typename Acc::State grid_stride_partial(const float* __restrict__ in, std::size_t n) {
    const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const std::size_t threads = gridDim.x * std::size_t{blockDim.x};
    typename Acc::State s = Acc::zero();

    const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(in) % sizeof(float4) / sizeof(float);
    const std::size_t head = misalignment == 0 ? 0 : (4 - misalignment < n ? 4 - misalignment : n);
    if (thread < head) Acc::add(s, __ldg(in + thread));

    const float4* __restrict__ body = reinterpret_cast<const float4*>(in + head);
    const std::size_t vectors = (n - head) / 4;
    std::size_t i = thread;
    for (; i + (LoadsInFlight - 1) * threads < vectors; i += LoadsInFlight * threads) {
        float4 v[LoadsInFlight];
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k) v[k] = load_stream<Hint>(body + i + k * threads);
#pragma unroll
        for (int k = 0; k < LoadsInFlight; ++k) add4<Acc>(s, v[k]);
    }
    for (; i < vectors; i += threads) add4<Acc>(s, load_stream<Hint>(body + i));

    const std::size_t tail = head + 4 * vectors + thread;
    if (tail < n) Acc::add(s, __ldg(in + tail));
    return s;
}

// Elements one block takes per pass of the grid-stride loop: more blocks than covering_blocks(n, this)
// would find nothing to load.
constexpr std::size_t elements_per_block_pass(unsigned block, int loads_in_flight = kLoadsInFlight) {
    return std::size_t{block} * 4 * static_cast<std::size_t>(loads_in_flight);
}

}  // namespace shootout::cuda
