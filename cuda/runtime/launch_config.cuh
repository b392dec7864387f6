// Launch sizes from the occupancy API and the device's SM count, never from constants tuned for one
// card.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <cstddef>

#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device.hpp"

namespace shootout::cuda {

struct LaunchConfig {
    unsigned grid = 1;
    unsigned block = 1;
};

// The block size the occupancy API picks for a kernel that takes `smem_per_thread` bytes of dynamic
// shared memory per thread, rounded down to a power of two (tree reductions halve the block), at
// least two warps.
template <class Kernel>
unsigned power_of_two_block(Kernel kernel, std::size_t smem_per_thread) {
    int min_grid = 0, block = 0;
    SHOOTOUT_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        &min_grid, &block, kernel, [smem_per_thread](int threads) { return threads * smem_per_thread; }));
    return std::max(64u, std::bit_floor(static_cast<unsigned>(block)));
}

// The most blocks of `block` threads that can be resident at once: a grid-stride kernel launched
// with this many keeps every SM full and needs no more.
template <class Kernel>
unsigned resident_blocks(Kernel kernel, unsigned block, std::size_t dynamic_smem = 0) {
    int per_sm = 0;
    SHOOTOUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(block), dynamic_smem));
    return static_cast<unsigned>(std::max(1, per_sm * device_properties().sm_count));
}

// The occupancy API's block size and the resident grid for it.
template <class Kernel>
LaunchConfig resident_launch(Kernel kernel) {
    int min_grid = 0, block = 0;
    SHOOTOUT_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel));
    return {.grid = resident_blocks(kernel, static_cast<unsigned>(block)), .block = static_cast<unsigned>(block)};
}

// Blocks that cover `items` at `per_block` items each: never more than `max_blocks`, at least one.
constexpr unsigned covering_blocks(std::size_t items, std::size_t per_block, unsigned max_blocks) {
    const std::size_t needed = (items + per_block - 1) / per_block;
    return static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, max_blocks));
}

// The grid of a one-launch reduction that lets the next call on its stream start early (programmatic
// launch): blocks covering `items` at `per_pass` a block pass, up to the resident grid; but while
// the resident grid would make at most `short_passes` passes, one block slot per SM stays free, so
// that the next call's blocks load there while this call's blocks finish (combine, atomics, ticket)
// instead of waiting for their slots. Beyond that the finish is a small part of a call, and a free
// slot would only let two calls read one buffer at once.
inline unsigned overlapping_grid(std::size_t items, std::size_t per_pass, unsigned resident, unsigned short_passes) {
    const unsigned sms = static_cast<unsigned>(device_properties().sm_count);
    const bool short_call = items <= std::size_t{resident} * per_pass * short_passes && resident > sms;
    return covering_blocks(items, per_pass, short_call ? resident - sms : resident);
}

}  // namespace shootout::cuda
