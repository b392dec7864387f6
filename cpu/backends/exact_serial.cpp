// The exact sum, one value at a time: each value's significand, shifted by its exponent, adds into
// 32-bit digits of a superaccumulator (Neal's small superaccumulator, for float32, float64, float16
// and bfloat16 inputs), and the total is rounded once to double. The plain form of what cpu/exact/simd does in
// vector lanes.
#include "exact/exact_accumulator.hpp"
#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(serial_backend<float, double, Float16, BFloat16>(
    "cpu/exact/serial", "exact sum rounded once: each value into 32-bit digits of a superaccumulator, one at a time",
    kSerial(Accumulator::exact, Order::sequential),
    []<class T>(const T* x, std::size_t n) {
        exact::Sum<T> sum;
        exact::accumulate(x, n, sum);
        return sum.round();
    }));

}  // namespace
}  // namespace shootout
