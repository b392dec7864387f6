// The element types the bandwidth-bound agents read (float, double, __half, __nv_bfloat16), 16 bytes
// per load whatever the type, so that every type keeps the same bytes in flight per thread: 4
// floats, 2 doubles or 8 16-bit values a load. A vector's lanes are widened exactly to the
// accumulator's type (every half and bfloat16 is a float, every float a double), the 16-bit ones a
// pair per packed conversion (__half22float2, __bfloat1622float2).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace shootout::cuda {

// Elements of In in one 16-byte load.
template <class In>
inline constexpr int kVectorLanes = static_cast<int>(16 / sizeof(In));

template <class In>
inline constexpr bool kIsHalfWidth = std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>;

// The type a sum of In is carried in unless a backend says otherwise: In itself for float and double,
// float for the 16-bit types (as frameworks sum them).
template <class In>
using DefaultAccumulation = std::conditional_t<std::is_same_v<In, double>, double, float>;

// x in Value, exactly: Value is never narrower than In.
template <class Value, class In>
__device__ __forceinline__ Value widen(In x) {
    static_assert(sizeof(Value) >= sizeof(In), "an accumulator narrower than its input would round it");
    if constexpr (std::is_same_v<In, __half>) return static_cast<Value>(__half2float(x));
    else if constexpr (std::is_same_v<In, __nv_bfloat16>) return static_cast<Value>(__bfloat162float(x));
    else return static_cast<Value>(x);
}

// The two 16-bit elements of a 32-bit word as floats: the lower address (the low half) in .x.
template <class In>
__device__ __forceinline__ float2 widen_pair(unsigned word) {
    if constexpr (std::is_same_v<In, __half>) {
        __half2 pair;
        std::memcpy(&pair, &word, sizeof pair);
        return __half22float2(pair);
    } else {
        static_assert(std::is_same_v<In, __nv_bfloat16>);
        __nv_bfloat162 pair;
        std::memcpy(&pair, &word, sizeof pair);
        return __bfloat1622float2(pair);
    }
}

// Calls f(Value) for the vector's kVectorLanes<In> elements in address order, each widened to Value.
template <class In, class Value, class F>
__device__ __forceinline__ void for_each_lane(uint4 v, F&& f) {
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
    if constexpr (std::is_same_v<In, double>) {
        f(widen<Value>(__hiloint2double(static_cast<int>(v.y), static_cast<int>(v.x))));
        f(widen<Value>(__hiloint2double(static_cast<int>(v.w), static_cast<int>(v.z))));
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if constexpr (std::is_same_v<In, float>) {
                f(widen<Value>(__uint_as_float(words[k])));
            } else {
                const float2 pair = widen_pair<In>(words[k]);
                f(widen<Value>(pair.x));
                f(widen<Value>(pair.y));
            }
        }
    }
}

// Lanes 4 Quad .. 4 Quad + 3 of a vector of floats or of a 16-bit type, as floats: the vector's
// kVectorLanes<In> / 4 quads in address order.
template <class In, int Quad>
__device__ __forceinline__ float4 float_quad(uint4 v) {
    static_assert(!std::is_same_v<In, double> && Quad >= 0 && Quad < kVectorLanes<In> / 4);
    if constexpr (std::is_same_v<In, float>) {
        return make_float4(__uint_as_float(v.x), __uint_as_float(v.y), __uint_as_float(v.z), __uint_as_float(v.w));
    } else {
        const float2 low = widen_pair<In>(Quad == 0 ? v.x : v.z), high = widen_pair<In>(Quad == 0 ? v.y : v.w);
        return make_float4(low.x, low.y, high.x, high.y);
    }
}

// Adds a 16-byte vector's lanes to an accumulator's state, in address order.
template <class Acc, class In>
__device__ __forceinline__ void add_vector(typename Acc::State& s, uint4 v) {
    for_each_lane<In, typename Acc::Value>(v, [&](typename Acc::Value x) { Acc::add(s, x); });
}

// The elements before the first 16-byte boundary at or after `in` (at most n), and the whole
// 16-byte vectors after them: the agents load the vectors and take head and tail one element a
// thread.
template <class In>
struct AlignedBody {
    std::size_t head, vectors;
    __device__ AlignedBody(const In* in, std::size_t n) {
        constexpr std::size_t kLanes = kVectorLanes<In>;
        const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(in) % 16 / sizeof(In);
        head = misalignment == 0 ? 0 : (kLanes - misalignment < n ? kLanes - misalignment : n);
        vectors = (n - head) / kLanes;
    }
    // The first element after the vectors.
    __device__ std::size_t tail() const { return head + kVectorLanes<In> * vectors; }
};

}  // namespace shootout::cuda
