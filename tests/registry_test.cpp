#include "bench/backend.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace shootout {
namespace {

// Each device this build has backends for has exactly one ceiling: what its rows are judged against.
TEST(Registry, EveryDeviceHasOneCeiling) {
    for (Device device : {Device::cpu, Device::cuda}) {
        int backends = 0, ceilings = 0;
        for (const auto& backend : registered_backends()) {
            if (backend.device != device) continue;
            ++backends;
            ceilings += backend.traits.role == Role::ceiling;
        }
        if (device_support(device)) {
            EXPECT_EQ(backends, 0) << to_string(device);
            continue;
        }
        EXPECT_GT(backends, 0) << to_string(device);
        EXPECT_EQ(ceilings, 1) << to_string(device);
    }
}

// A reproducibility that depends on the thread count means nothing for a backend that takes none.
TEST(Registry, TraitsAreConsistent) {
    for (const auto& backend : registered_backends()) {
        // GPU and rank counts split the input as thread counts do.
        if (!backend.parallel && !backend.multi_gpu && !backend.distributed) {
            EXPECT_NE(backend.traits.reproducibility, Reproducibility::per_thread_count) << backend.name;
            EXPECT_NE(backend.traits.order, Order::thread_chunks) << backend.name;
        }
        EXPECT_EQ(backend.traits.role == Role::reference_copy, backend.traits.accumulator == Accumulator::none) << backend.name;
    }
}

TEST(Registry, EveryBackendDescribesItself) {
    const std::regex stable_name("(cpu|cuda|nccl|mpi)(/[a-z0-9_.+-]+)+");
    for (const auto& backend : registered_backends()) {
        EXPECT_TRUE(std::regex_match(backend.name, stable_name)) << backend.name;
        // nccl/* run on CUDA devices; mpi/* on either, in several processes.
        if (backend.name.starts_with("nccl/")) EXPECT_TRUE(backend.multi_gpu && backend.device == Device::cuda) << backend.name;
        else if (backend.name.starts_with("mpi/")) EXPECT_TRUE(backend.distributed) << backend.name;
        else EXPECT_TRUE(backend.name.starts_with(to_string(backend.device))) << backend.name;
        EXPECT_EQ(backend.distributed, backend.name.starts_with("mpi/")) << backend.name;
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
    EXPECT_THROW(register_backend({.name = "cpu/copy-that-sums", .traits = {.role = Role::reference_copy},
                                   .prepare = [](auto, auto&) { return nullptr; }}),
                 std::logic_error);
}

}  // namespace
}  // namespace shootout
