// The element types the harness sums: an axis of the sweep (--dtype=f32,f64,f16,bf16), as nvbench's
// type axes are. A backend declares the types it takes (Backend::element_types); the others are
// skipped with the reason. Bytes always come from input_bytes(), never from sizeof(float). float16
// and bfloat16 values are held as their bit patterns (api/float16.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/float16.hpp"

namespace shootout {

enum class ElementType { f32, f64, f16, bf16 };

// Every type the harness offers, in --dtype's order of listing.
inline constexpr ElementType kElementTypes[] = {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16};

// "f32", "f64", "f16", "bf16": --dtype's words, the CSV's dtype column.
constexpr std::string_view to_string(ElementType type) {
    switch (type) {
        case ElementType::f32: return "f32";
        case ElementType::f64: return "f64";
        case ElementType::f16: return "f16";
        case ElementType::bf16: return "bf16";
    }
    return "?";
}
inline std::optional<ElementType> element_type_named(std::string_view name) {
    for (ElementType type : kElementTypes)
        if (to_string(type) == name) return type;
    return std::nullopt;
}

constexpr std::size_t element_bytes(ElementType type) {
    switch (type) {
        case ElementType::f64: return 8;
        case ElementType::f16:
        case ElementType::bf16: return 2;
        case ElementType::f32: break;
    }
    return 4;
}

// The format's name as NumPy and people write it: "float32", "float64", "float16", "bfloat16".
constexpr std::string_view format_name(ElementType type) {
    switch (type) {
        case ElementType::f32: return "float32";
        case ElementType::f64: return "float64";
        case ElementType::f16: return "float16";
        case ElementType::bf16: return "bfloat16";
    }
    return "?";
}

// The bytes an input of n elements holds: what GB/s divides, and what every memory check counts.
constexpr std::uint64_t input_bytes(ElementType type, std::uint64_t n) { return n * element_bytes(type); }

template <class T>
struct ElementTypeOf;
template <>
struct ElementTypeOf<float> {
    static constexpr ElementType value = ElementType::f32;
};
template <>
struct ElementTypeOf<double> {
    static constexpr ElementType value = ElementType::f64;
};
template <>
struct ElementTypeOf<Float16> {
    static constexpr ElementType value = ElementType::f16;
};
template <>
struct ElementTypeOf<BFloat16> {
    static constexpr ElementType value = ElementType::bf16;
};
template <class T>
inline constexpr ElementType element_type_of = ElementTypeOf<T>::value;

// The type a sum of T "in its own precision" adds in: T for float and double; float for float16 and
// bfloat16, which widen to it exactly and have no arithmetic of their own on most hosts (a framework
// sums them in float too). A 16-bit running total is a backend of its own (Accumulator::f16, bf16).
template <class T>
using ArithmeticOf = std::conditional_t<sizeof(T) == 2, float, T>;

// A read-only array of one element type: what a backend's prepare() receives. Backends that take
// float32 only may keep a std::span<const float> parameter: the conversion below hands them the
// floats, and the harness never prepares a backend with a type it does not declare.
class Elements {
public:
    Elements() = default;
    template <class T>
    Elements(std::span<const T> values)  // NOLINT(google-explicit-constructor): spans convert
        : type_(element_type_of<T>), data_(values.data()), size_(values.size()) {}
    template <class T>
    Elements(std::span<T> values) : Elements(std::span<const T>(values)) {}  // NOLINT(google-explicit-constructor)
    template <class T>
    Elements(const std::vector<T>& values) : Elements(std::span<const T>(values)) {}  // NOLINT(google-explicit-constructor)

    ElementType type() const { return type_; }
    std::size_t size() const { return size_; }
    std::size_t size_bytes() const { return size_ * element_bytes(type_); }
    bool empty() const { return size_ == 0; }
    const void* data() const { return data_; }

    // The values as T; throws std::logic_error when they are of another type.
    template <class T>
    std::span<const T> as() const {
        if (type_ != element_type_of<T>)
            throw std::logic_error("elements of type " + std::string(to_string(type_)) + " read as " +
                                   std::string(to_string(element_type_of<T>)));
        return {static_cast<const T*>(data_), size_};
    }
    operator std::span<const float>() const { return as<float>(); }  // NOLINT(google-explicit-constructor)

    // Elements [offset, offset + count).
    Elements subspan(std::size_t offset, std::size_t count) const {
        Elements part = *this;
        part.data_ = static_cast<const char*>(data_) + offset * element_bytes(type_);
        part.size_ = count;
        return part;
    }

    // Calls f(std::span<const T>) with T the element type's C++ type, one of Types (every element
    // type when none are named); returns what f returns. Elements of a type not among Types are a
    // bug (the harness prepares a backend only with a type it declares): as<T>() throws saying so.
    template <class... Types, class F>
    decltype(auto) visit(F&& f) const {
        if constexpr (sizeof...(Types) == 0) return visit<float, double, Float16, BFloat16>(std::forward<F>(f));
        else return visit_one_of<Types...>(f);
    }

private:
    template <class T, class... Rest, class F>
    decltype(auto) visit_one_of(F& f) const {
        if constexpr (sizeof...(Rest) > 0)
            if (type_ != element_type_of<T>) return visit_one_of<Rest...>(f);
        return f(as<T>());
    }

    ElementType type_ = ElementType::f32;
    const void* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace shootout
