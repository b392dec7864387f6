// What the tests over every registered backend share: how GoogleTest names and prints a backend,
// and data on which every correct summation order is exact.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/device_api.hpp"
#include "gpu/runtime/cuda_api.hpp"

namespace shootout {

// A parameter appears in ctest's test names and in failure messages: the backend's name, not its address.
inline void PrintTo(const Backend* backend, std::ostream* os) { *os << backend->name; }

// "cpu/avx2/kahan" -> "cpu_avx2_kahan": test names allow only letters, digits and underscores.
inline std::string backend_test_name(const ::testing::TestParamInfo<const Backend*>& info) {
    std::string name = info.param->name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// Integers in [-magnitude, magnitude]: while n * magnitude < 2^24 every partial sum of any order is
// an integer exact in float, so every correct algorithm, float or not, returns the exact sum, and a
// skipped, repeated or misread element changes it.
inline std::vector<float> small_integers(std::size_t n, int magnitude, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-magnitude, magnitude);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(value(rng));
    return v;
}

// Why this build has no CUDA backends, or nullopt when it has them.
inline std::optional<std::string> cuda_unbuilt() { return find_device_api(cuda::kDevice)->unbuilt; }

}  // namespace shootout
