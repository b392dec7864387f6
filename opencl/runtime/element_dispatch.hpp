// The element types the OpenCL kernels take, float and double, and how a program is built for one:
// every kernel source (opencl/kernels/*.cl) reads its type from ELEMENT_F64, 1 for doubles and 0 for
// floats, the define vulkan/shaders/reduce.comp reads too. The 16-bit types have no kernels here.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include "api/element_type.hpp"

namespace shootout::opencl {

// Calls f(std::type_identity<T>{}) with T the host type of `type`'s elements (float or double);
// returns what f returns.
template <class F>
decltype(auto) with_kernel_type(ElementType type, F&& f) {
    switch (type) {
        case ElementType::f32: return f(std::type_identity<float>{});
        case ElementType::f64: return f(std::type_identity<double>{});
        case ElementType::f16:
        case ElementType::bf16: break;
    }
    throw std::logic_error("no OpenCL kernel takes element type " + std::string(to_string(type)));
}

// The build option that makes a program's kernels read `type`.
inline std::string element_define(ElementType type) {
    return with_kernel_type(type, []<class T>(std::type_identity<T>) {
        return std::string("-DELEMENT_F64=") + (std::is_same_v<T, double> ? "1" : "0");
    });
}

}  // namespace shootout::opencl
