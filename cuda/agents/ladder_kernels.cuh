// The classic ladder of block reductions, one kernel per step, each a small change of the one before
// (diff two neighbours to see the step). Every kernel sums one block's share of in[0..n) into
// block_sums[blockIdx.x]; ladder_sum.cu launches them until one value remains. Steps 1-8 take the
// block size at run time, 9-12 as a template parameter; the tree steps need a power of two.
#pragma once

#include <cstddef>

#include "cuda/primitives/warp_reduce.cuh"

namespace shootout::cuda::ladder {

// The global-memory steps' share: blockDim.x elements from blockIdx.x * blockDim.x, fewer in the
// last block.
__device__ inline std::size_t elements_of_block(std::size_t n) {
    const std::size_t first = blockIdx.x * std::size_t{blockDim.x};
    return n - first < blockDim.x ? n - first : blockDim.x;
}

// The shared-memory steps' load: one element per thread, zeros past the end, then a barrier.
__device__ inline void load_one_per_thread(const float* in, std::size_t n, float* partial) {
    const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
}

// 1. Interleaved addressing, in place in global memory: thread t adds its neighbour at distance s
// when t is a multiple of 2s. Overwrites the input.
__global__ void interleaved_global(float* data, std::size_t n, float* block_sums) {
    float* chunk = data + blockIdx.x * std::size_t{blockDim.x};
    const std::size_t len = elements_of_block(n);
    const unsigned t = threadIdx.x;
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0 && t + s < len) chunk[t] += chunk[t + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = chunk[0];
}

// 2. The same tree in shared memory, loaded first (zeros past the end).
__global__ void interleaved_shared(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    load_one_per_thread(in, n, partial);
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// 3. Better branching, in global memory: no modulo, and the active threads are the first ones, so
// whole warps drop out together. Overwrites the input.
__global__ void branching_global(float* data, std::size_t n, float* block_sums) {
    float* chunk = data + blockIdx.x * std::size_t{blockDim.x};
    const std::size_t len = elements_of_block(n);
    const unsigned t = threadIdx.x;
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned k = 2 * s * t;
        if (k + s < len) chunk[k] += chunk[k + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = chunk[0];
}

// 4. Better branching in shared memory (its stride-2s accesses conflict in the banks).
__global__ void branching_shared(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    load_one_per_thread(in, n, partial);
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned k = 2 * s * t;
        if (k < blockDim.x) partial[k] += partial[k + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// 5. Sequential addressing, in global memory: the first s threads add the element s further on,
// the stride halving each time. Overwrites the input.
__global__ void sequential_global(float* data, std::size_t n, float* block_sums) {
    float* chunk = data + blockIdx.x * std::size_t{blockDim.x};
    const std::size_t len = elements_of_block(n);
    const unsigned t = threadIdx.x;
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s && t + s < len) chunk[t] += chunk[t + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = chunk[0];
}

// 6. Sequential addressing in shared memory: consecutive threads, consecutive banks.
__global__ void sequential_shared(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    load_one_per_thread(in, n, partial);
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// 7. First add during load: each thread loads two elements a block apart and stores their sum, so a
// block covers twice as many elements.
__global__ void first_add_during_load(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    const std::size_t i = blockIdx.x * 2 * std::size_t{blockDim.x} + t;
    partial[t] = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// The last six halvings, within the first warp: no block barrier, only the warp's own. The textbook
// `volatile` version without __syncwarp races on Volta and later (independent thread scheduling).
__device__ inline void warp_sum_unrolled(float* partial, unsigned t) {
#pragma unroll
    for (unsigned s = 32; s > 0; s /= 2) {
        const float v = partial[t] + partial[t + s];
        __syncwarp();
        partial[t] = v;
        __syncwarp();
    }
}

// 8. Warp-level unrolling: the block barrier loop stops at 64 elements, one warp does the rest.
__global__ void warp_unrolled(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    const std::size_t i = blockIdx.x * 2 * std::size_t{blockDim.x} + t;
    partial[t] = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t < 32) warp_sum_unrolled(partial, t);
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// Steps 9-12 halve with a compile-time block size, so the barrier loop unrolls; it stops at 64
// elements, for the first warp to finish.
template <unsigned Block>
__device__ void barrier_tree_to_64(float* partial, unsigned t) {
#pragma unroll
    for (unsigned s = Block / 2; s > 32; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
}

// 9. Complete unrolling: the block size is a template parameter.
template <unsigned Block>
__global__ void complete_unroll(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    const std::size_t i = blockIdx.x * 2 * std::size_t{Block} + t;
    partial[t] = (i < n ? in[i] : 0.0f) + (i + Block < n ? in[i + Block] : 0.0f);
    __syncthreads();
    barrier_tree_to_64<Block>(partial, t);
    if (t < 32) warp_sum_unrolled(partial, t);
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// 10. Grid-size reduction: a grid that just fills the device (occupancy API), each thread walking the
// input with a grid-stride loop, two elements a block apart per step.
template <unsigned Block>
__global__ void grid_stride(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    float sum = 0.0f;
    for (std::size_t i = blockIdx.x * 2 * std::size_t{Block} + t; i < n; i += 2 * std::size_t{Block} * gridDim.x)
        sum += in[i] + (i + Block < n ? in[i + Block] : 0.0f);
    partial[t] = sum;
    __syncthreads();
    barrier_tree_to_64<Block>(partial, t);
    if (t < 32) warp_sum_unrolled(partial, t);
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// Step 11's loop: 16 bytes per load (in is 16-byte aligned); the last n % 4 elements one per thread.
template <unsigned Block>
__device__ float vector_grid_stride_sum(const float* in, std::size_t n) {
    const std::size_t thread = blockIdx.x * std::size_t{Block} + threadIdx.x;
    const float4* vectors = reinterpret_cast<const float4*>(in);
    float sum = 0.0f;
    for (std::size_t i = thread; i < n / 4; i += std::size_t{Block} * gridDim.x) {
        const float4 v = vectors[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (n / 4 * 4 + thread < n) sum += in[n / 4 * 4 + thread];
    return sum;
}

// 11. Vector loads in the grid-stride loop.
template <unsigned Block>
__global__ void vector_loads(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    partial[t] = vector_grid_stride_sum<Block>(in, n);
    __syncthreads();
    barrier_tree_to_64<Block>(partial, t);
    if (t < 32) warp_sum_unrolled(partial, t);
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

// 12. Shuffle down: the first warp finishes with register shuffles instead of shared memory.
template <unsigned Block>
__global__ void shuffle_down(const float* in, std::size_t n, float* block_sums) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    partial[t] = vector_grid_stride_sum<Block>(in, n);
    __syncthreads();
    barrier_tree_to_64<Block>(partial, t);
    float sum = 0.0f;
    if (t < 32) sum = warp_reduce<PlainSum<float>>(partial[t] + partial[t + 32]);
    if (t == 0) block_sums[blockIdx.x] = sum;
}

}  // namespace shootout::cuda::ladder
