// The exact sum, one float at a time: each float's 24-bit significand, shifted by its exponent, adds
// into two 32-bit digits of a superaccumulator (Neal's small superaccumulator, float32 version), and
// the total is rounded once to double. The plain form of what cpu/exact/simd does in vector lanes.
#include "exact/exact_accumulator.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

double sum_exact_serial(const float* x, std::size_t n) {
    exact::Sum sum;
    simd::accumulate_exact_scalar(x, n, sum);
    return sum.round();
}

[[maybe_unused]] const bool registered = register_backend(serial_backend(
    "cpu/exact/serial", "exact sum rounded once: each float into 32-bit digits of a superaccumulator, one at a time",
    kSerial(Accumulator::exact, Order::sequential), sum_exact_serial));

}  // namespace
}  // namespace shootout
