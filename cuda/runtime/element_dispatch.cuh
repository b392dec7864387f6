// The device type of each element type the harness offers, for backends that instantiate their
// kernels per type: f32 float, f64 double, f16 __half, bf16 __nv_bfloat16.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "api/element_type.hpp"

namespace shootout::cuda {

// Calls f(std::type_identity<In>{}) with In the device type of `type`; returns what f returns.
template <class F>
decltype(auto) with_device_type(ElementType type, F&& f) {
    switch (type) {
        case ElementType::f32: return f(std::type_identity<float>{});
        case ElementType::f64: return f(std::type_identity<double>{});
        case ElementType::f16: return f(std::type_identity<__half>{});
        case ElementType::bf16: return f(std::type_identity<__nv_bfloat16>{});
    }
    throw std::logic_error("no device type for element type " + std::string(to_string(type)));
}

// The ElementType of a device type: with_device_type's inverse.
template <class In>
constexpr ElementType device_element_type() {
    if constexpr (std::is_same_v<In, double>) return ElementType::f64;
    else if constexpr (std::is_same_v<In, __half>) return ElementType::f16;
    else if constexpr (std::is_same_v<In, __nv_bfloat16>) return ElementType::bf16;
    else {
        static_assert(std::is_same_v<In, float>, "float, double, __half or __nv_bfloat16");
        return ElementType::f32;
    }
}

}  // namespace shootout::cuda
