// A plain loop with independent float accumulators: what the compiler's auto-vectoriser makes of it.
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(serial_backend(
    "cpu/serial/unrolled", "plain loop, 16 independent float accumulators, vectorised by the compiler (baseline ISA)",
    kSerial(Accumulator::f32, Order::lanes), simd::sum_unrolled_f32));

}  // namespace
}  // namespace shootout
