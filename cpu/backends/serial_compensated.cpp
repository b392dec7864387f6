// Scalar compensated summation into float: Kahan's and Neumaier's, one element at a time.
#include "cpu/kernels/compensated.hpp"
#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

template <template <class> class Compensated>
float sum_compensated(const float* x, std::size_t n) {
    Compensated<float> total;
    for (std::size_t i = 0; i < n; ++i) total.add(x[i]);
    return total.result();
}

[[maybe_unused]] const bool registered_kahan = register_backend(serial_backend(
    "cpu/serial/kahan", "Kahan compensated summation in float, one element at a time",
    kSerial(Accumulator::compensated_f32, Order::sequential), sum_compensated<KahanSum>));
[[maybe_unused]] const bool registered_neumaier = register_backend(serial_backend(
    "cpu/serial/neumaier", "Neumaier's improved Kahan summation in float, one element at a time",
    kSerial(Accumulator::compensated_f32, Order::sequential), sum_compensated<NeumaierSum>));

}  // namespace
}  // namespace shootout
