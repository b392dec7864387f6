#include "backend.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace shootout {
namespace {

// Every backend this build must register. A backend missing here was dropped (by the linker, or a
// build option); one extra was added without being listed.
const std::vector<std::string> kExpectedCpu = {
    "cpu/serial/accumulate-f32",
    "cpu/serial/accumulate-f64",
    "cpu/serial/kahan",
    "cpu/serial/neumaier",
    "cpu/serial/pairwise",
    "cpu/serial/unrolled",
    "cpu/avx2/f32",
    "cpu/avx2/kahan",
    "cpu/avx2/f64",
    "cpu/avx512/f32",
    "cpu/avx512/kahan",
    "cpu/avx512/f64",
    "cpu/openmp/reduction",
    "cpu/openmp/simd",
    "cpu/stl/par",
    "cpu/stl/par_unseq",
    "cpu/tbb/reduce",
    "cpu/tbb/deterministic",
    "cpu/pool/simd",
    "cpu/threads/simd",
    "cpu/baseline/read",
};

const std::vector<std::string> kExpectedCuda = {
    "cuda/atomic/grid",
    "cuda/baseline/copy",
    "cuda/baseline/read",
    "cuda/cub",
    "cuda/ladder/01-interleaved-global",
    "cuda/ladder/02-interleaved-shared",
    "cuda/ladder/03-branching-global",
    "cuda/ladder/04-branching-shared",
    "cuda/ladder/05-sequential-global",
    "cuda/ladder/06-sequential-shared",
    "cuda/ladder/07-first-add-during-load",
    "cuda/ladder/08-warp-unrolled",
    "cuda/ladder/09-complete-unroll",
    "cuda/ladder/10-grid-stride",
    "cuda/ladder/11-vector-loads",
    "cuda/ladder/12-shuffle-down",
    "cuda/shuffle",
    "cuda/shuffle-f64",
    "cuda/shuffle-kahan",
    "cuda/single-pass",
    "cuda/single-pass-f64",
    "cuda/single-pass-kahan",
    "cuda/thrust",
};

TEST(Registry, HoldsExactlyTheExpectedBackends) {
    std::vector<std::string> expected = kExpectedCpu;
    expected.insert(expected.end(), kExpectedCuda.begin(), kExpectedCuda.end());
    std::sort(expected.begin(), expected.end());
    std::vector<std::string> names;
    for (const auto& backend : registered_backends()) names.push_back(backend.name);
    EXPECT_EQ(names, expected);
}

TEST(Registry, EveryBackendDescribesItself) {
    const std::regex stable_name("(cpu|cuda)(/[a-z0-9_.+-]+)+");
    for (const auto& backend : registered_backends()) {
        EXPECT_TRUE(std::regex_match(backend.name, stable_name)) << backend.name;
        EXPECT_TRUE(backend.name.starts_with(to_string(backend.device))) << backend.name;
        EXPECT_FALSE(backend.description.empty()) << backend.name;
        EXPECT_EQ(backend.description.find('\n'), std::string::npos) << backend.name;
        const auto reason = backend.why_unavailable();
        EXPECT_TRUE(!reason || !reason->empty()) << backend.name;
    }
}

TEST(Registry, FindsByName) {
    ASSERT_NE(find_backend("cpu/serial/accumulate-f32"), nullptr);
    EXPECT_EQ(find_backend("cpu/serial/accumulate-f32")->device, Device::cpu);
    EXPECT_EQ(find_backend("cpu/none"), nullptr);
}

TEST(Registry, RejectsDuplicatesAndIncompleteBackends) {
    EXPECT_THROW(register_backend({.name = "cpu/serial/accumulate-f32", .prepare = [](auto, auto&) { return nullptr; }}),
                 std::logic_error);
    EXPECT_THROW(register_backend({.name = "cpu/incomplete"}), std::logic_error);
}

}  // namespace
}  // namespace shootout
