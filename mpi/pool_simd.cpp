// mpi/pool-simd: each rank sums its shard of floats or doubles with cpu/pool/simd (its thread pool,
// --threads threads, the widest SIMD kernel, double accumulation) and the ranks' double partials meet
// in MPI_Allreduce.
#include "mpi/mpi_reduction.hpp"

namespace shootout::mpi {
namespace {

[[maybe_unused]] const bool registered = register_distributed_backend({
    .name = "mpi/pool-simd",
    .description = "per rank: cpu/pool/simd on its contiguous shard; the ranks' double partials added by MPI_Allreduce",
    .device = Device::cpu,
    // Thread chunks within rank shards; the all-reduce's order is fixed for a rank count (OpenMPI's
    // algorithm choice depends on the count and message size only).
    .traits = {.accumulator = Accumulator::f64, .order = Order::thread_chunks, .reproducibility = Reproducibility::per_thread_count},
    .element_types = {ElementType::f32, ElementType::f64},
    .parallel = true,
    .make = combining("cpu/pool/simd"),
});

}  // namespace
}  // namespace shootout::mpi
