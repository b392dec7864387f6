// Blocked pairwise summation in the element type, as NumPy's pairwise_sum does it for float32 and
// float64 arrays (and for float16 ones in float, as here for float16 and bfloat16): halves down to
// blocks of at most 128, each summed with 8 interleaved accumulators.
#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

constexpr std::size_t kBlock = 128;
constexpr std::size_t kAccumulators = 8;

// Every element passes through at most (kBlock / kAccumulators - 1) + 3 + (kAccumulators - 1) = 25
// additions in its block and one more per halving above it (tests/error_bounds.hpp's pairwise bound).
template <class T>
ArithmeticOf<T> sum_pairwise(const T* x, std::size_t n) {
    using Sum = ArithmeticOf<T>;
    if (n < kAccumulators) {
        Sum sum = 0;
        for (std::size_t i = 0; i < n; ++i) sum += x[i];
        return sum;
    }
    if (n <= kBlock) {
        Sum acc[kAccumulators];
        for (std::size_t j = 0; j < kAccumulators; ++j) acc[j] = x[j];
        std::size_t i = kAccumulators;
        for (; i + kAccumulators <= n; i += kAccumulators)
            for (std::size_t j = 0; j < kAccumulators; ++j) acc[j] += x[i + j];
        Sum sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        for (; i < n; ++i) sum += x[i];
        return sum;
    }
    const std::size_t half = n / 2 / kAccumulators * kAccumulators;
    return sum_pairwise(x, half) + sum_pairwise(x + half, n - half);
}

[[maybe_unused]] const bool registered = register_backend(serial_backend_in_element_type(
    "cpu/serial/pairwise",
    "blocked pairwise summation in the element type (float or double; float for 16-bit input), blocks of 128 with 8 accumulators (NumPy's)",
    kSerial(Accumulator::f32, Order::pairwise), [](const auto* x, std::size_t n) { return sum_pairwise(x, n); }));

}  // namespace
}  // namespace shootout
