// The ladder's shared scaffolding: launch a step's kernel over the input, then over its block sums,
// until one block produces the final value. Each step is a row of the table at the bottom.
#include <climits>
#include <memory>
#include <stdexcept>

#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/agents/ladder_kernels.cuh"
#include "cuda/runtime/launch_config.cuh"

namespace shootout::cuda {
namespace {

// Calls f.template operator()<B>() with the power-of-two block size as a constant.
template <class F>
void with_block(unsigned block, F&& f) {
    switch (block) {
        case 64: return f.template operator()<64>();
        case 128: return f.template operator()<128>();
        case 256: return f.template operator()<256>();
        case 512: return f.template operator()<512>();
        case 1024: return f.template operator()<1024>();
    }
    throw std::logic_error("ladder: block size " + std::to_string(block) + " is not a power of two from 64 to 1024");
}

template <class Kernels>
class LadderSum final : public DeviceSum<float> {
public:
    explicit LadderSum(std::size_t n) : n_(n) {
        block_ = power_of_two_block(Kernels::template kernel<1024>(), sizeof(float));
        max_grid_ = INT_MAX;
        if (Kernels::grid_stride)
            with_block(block_, [&]<unsigned B>() { max_grid_ = resident_blocks(Kernels::template kernel<B>(), B, B * sizeof(float)); });
        else if ((n - 1) / per_block() >= INT_MAX)
            throw std::runtime_error("an input of " + std::to_string(n) + " needs more blocks than a grid holds");
        const unsigned first = blocks_for(n);
        sums_[0] = DeviceBuffer<float>(first);
        sums_[1] = DeviceBuffer<float>(blocks_for(first));
    }

    void enqueue(float* in, float* out, cudaStream_t stream) override {
        with_block(block_, [&]<unsigned B>() {
            float* src = in;
            std::size_t count = n_;
            for (int pass = 0;; ++pass) {
                const unsigned grid = blocks_for(count);
                float* dst = grid == 1 ? out : sums_[pass % 2].get();
                Kernels::template kernel<B>()<<<grid, B, B * sizeof(float), stream>>>(src, count, dst);
                SHOOTOUT_CUDA_CHECK_LAUNCH(ladder step);
                if (grid == 1) return;
                src = dst;
                count = grid;
            }
        });
    }

private:
    std::size_t per_block() const { return std::size_t{block_} * Kernels::elements_per_thread; }
    unsigned blocks_for(std::size_t count) const { return covering_blocks(count, per_block(), max_grid_); }

    std::size_t n_;
    unsigned block_ = 0, max_grid_ = 0;
    DeviceBuffer<float> sums_[2];  // block sums of odd and even passes
};

// One struct per step: its kernel for a block size, elements per thread and pass, grid kind.
#define SHOOTOUT_LADDER_STEP(Name, kernel_expr, per_thread, stride)                      \
    struct Name {                                                                         \
        template <unsigned B>                                                             \
        static auto kernel() { return kernel_expr; }                                      \
        static constexpr unsigned elements_per_thread = per_thread;                       \
        static constexpr bool grid_stride = stride;                                       \
    }

SHOOTOUT_LADDER_STEP(InterleavedGlobal, ladder::interleaved_global, 1, false);
SHOOTOUT_LADDER_STEP(InterleavedShared, ladder::interleaved_shared, 1, false);
SHOOTOUT_LADDER_STEP(BranchingGlobal, ladder::branching_global, 1, false);
SHOOTOUT_LADDER_STEP(BranchingShared, ladder::branching_shared, 1, false);
SHOOTOUT_LADDER_STEP(SequentialGlobal, ladder::sequential_global, 1, false);
SHOOTOUT_LADDER_STEP(SequentialShared, ladder::sequential_shared, 1, false);
SHOOTOUT_LADDER_STEP(FirstAddDuringLoad, ladder::first_add_during_load, 2, false);
SHOOTOUT_LADDER_STEP(WarpUnrolled, ladder::warp_unrolled, 2, false);
SHOOTOUT_LADDER_STEP(CompleteUnroll, ladder::complete_unroll<B>, 2, false);
SHOOTOUT_LADDER_STEP(GridStride, ladder::grid_stride<B>, 2, true);
SHOOTOUT_LADDER_STEP(VectorLoads, ladder::vector_loads<B>, 4, true);
SHOOTOUT_LADDER_STEP(ShuffleDown, ladder::shuffle_down<B>, 4, true);
#undef SHOOTOUT_LADDER_STEP

template <class Kernels>
bool register_step(std::string name, std::string description, bool writes_input = false) {
    return register_device_backend(kRuntime, {
        .name = "cuda/ladder/" + std::move(name),
        .description = std::move(description),
        .traits = kFixedTree(Accumulator::f32),
        .writes_input = writes_input,
        .make = [](std::size_t n, ElementType) { return std::make_unique<LadderSum<Kernels>>(n); },
    });
}

constexpr bool kInPlace = true;

[[maybe_unused]] const bool registered =
    register_step<InterleavedGlobal>("01-interleaved-global",
        "one element per thread, tree with t % 2s in place in global memory (writes its input; timed on a fresh copy)", kInPlace) &&
    register_step<InterleavedShared>("02-interleaved-shared", "01 in shared memory") &&
    register_step<BranchingGlobal>("03-branching-global",
        "index 2st instead of modulo, in place in global memory (writes its input; timed on a fresh copy)", kInPlace) &&
    register_step<BranchingShared>("04-branching-shared", "03 in shared memory (strided: bank conflicts)") &&
    register_step<SequentialGlobal>("05-sequential-global",
        "halving stride, first s threads active, in place in global memory (writes its input; timed on a fresh copy)", kInPlace) &&
    register_step<SequentialShared>("06-sequential-shared", "05 in shared memory: conflict-free") &&
    register_step<FirstAddDuringLoad>("07-first-add-during-load", "06, each thread adding two elements as it loads") &&
    register_step<WarpUnrolled>("08-warp-unrolled", "07, the last 64 elements summed by one warp without block barriers") &&
    register_step<CompleteUnroll>("09-complete-unroll", "08 with the block size a template parameter: barrier loop unrolled") &&
    register_step<GridStride>("10-grid-stride", "09 on a device-filling grid (occupancy API) with a grid-stride loop") &&
    register_step<VectorLoads>("11-vector-loads", "10 with 16-byte float4 loads") &&
    register_step<ShuffleDown>("12-shuffle-down", "11, the last warp summing by __shfl_down_sync");

}  // namespace
}  // namespace shootout::cuda
