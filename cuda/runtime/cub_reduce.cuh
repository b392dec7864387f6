// cub::DeviceReduce over elements of In, carried in Acc: DeviceReduce::Sum where the two are one type,
// else DeviceReduce::TransformReduce, each element widened to Acc as CUB loads it. Shared by
// cuda/cub (cuda/backends/cub_sum.cu) and the single-pass sweep's reference (tools/single_pass_sweep.cu).
#pragma once

#include <cub/device/device_reduce.cuh>

#include <cuda/std/functional>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cuda/primitives/element_vector.cuh"

namespace shootout::cuda {

// TransformReduce's transform: an element widened to the accumulator's type.
template <class Acc>
struct WidenTo {
    template <class In>
    __device__ Acc operator()(In x) const {
        return widen<Acc>(x);
    }
};

// Sums in[0..n) into *out, carried in Acc; with temp null, sets bytes to the storage it needs.
template <class In, class Acc>
cudaError_t cub_sum(void* temp, std::size_t& bytes, const In* in, Acc* out, std::int64_t n, cudaStream_t stream) {
    if constexpr (std::is_same_v<In, Acc>) return cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream);
    else return cub::DeviceReduce::TransformReduce(temp, bytes, in, out, n, ::cuda::std::plus<Acc>{}, WidenTo<Acc>{}, Acc(0), stream);
}

}  // namespace shootout::cuda
