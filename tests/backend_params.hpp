// Value-parameterised tests over registered backends: how GoogleTest names and prints them.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

#include "backend.hpp"

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

}  // namespace shootout
