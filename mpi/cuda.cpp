// mpi/cuda: one GPU per rank, the rank's local rank on its node choosing it (local rank modulo the
// visible GPUs); each rank sums its shard of floats or doubles with cuda/single-pass-f64 (the
// single-pass kernel, double accumulation) and the double partials meet in MPI_Allreduce. The GPU's partial is copied
// back to the host inside the timed call: the all-reduce runs on host values.
#include "cuda/runtime/cuda_api.hpp"
#include "cuda/runtime/device.hpp"
#include "mpi/mpi_reduction.hpp"

namespace shootout::mpi {
namespace {

[[maybe_unused]] const bool registered = register_distributed_backend({
    .name = "mpi/cuda",
    .description = "per rank: cuda/single-pass-f64 on its shard, on the GPU its node-local rank picks; double partials added by MPI_Allreduce",
    .device = cuda::kDevice,
    .cache = Cache::cold,
    .devices = 1,
    .traits = {.accumulator = Accumulator::f64, .order = Order::tree, .reproducibility = Reproducibility::per_thread_count},
    .element_types = {ElementType::f32, ElementType::f64},
    .unavailable_reason = cuda::why_no_device,
    .make = [](Elements shard, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
        // Before anything is allocated: every later CUDA call of this process goes to this device.
        cuda::select_device(world().local_rank % cuda::device_count());
        return combining("cuda/single-pass-f64")(shard, options);
    },
    .device_info = cuda::device_info,
});

}  // namespace
}  // namespace shootout::mpi
