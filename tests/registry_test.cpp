#include "api/backend.hpp"
#include "api/device_api.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace shootout {
namespace {

// Each device API this build has backends for has exactly one ceiling: what its rows are judged
// against; each but the host's one launch floor too, which with the ceiling's best bandwidth makes
// the device's roofline (plot/shootout_csv.py). An unbuilt API has none, and says why.
TEST(Registry, EveryDeviceHasOneCeilingAndEveryAcceleratorOneLaunchFloor) {
    ASSERT_EQ(device_apis().front().device, Device::cpu);
    for (const DeviceApi& api : device_apis()) {
        int backends = 0, ceilings = 0, floors = 0;
        for (const auto& backend : registered_backends()) {
            if (backend.device != api.device) continue;
            ++backends;
            ceilings += backend.traits.role == Role::ceiling;
            floors += backend.traits.role == Role::launch_floor;
        }
        if (api.unbuilt) {
            EXPECT_FALSE(api.unbuilt->empty()) << to_string(api.device);
            EXPECT_EQ(backends, 0) << to_string(api.device);
            continue;
        }
        EXPECT_GT(backends, 0) << to_string(api.device);
        EXPECT_EQ(ceilings, 1) << to_string(api.device);
        EXPECT_EQ(floors, api.device == Device::cpu ? 0 : 1) << to_string(api.device);
    }
}

// Device rules come from the record: every backend runs on a registered API, a device backend uses
// a device and rotates its inputs, a host one neither. Every backend takes float32 input, the
// default, but one that keeps a 16-bit total: it takes only 16-bit types, each summed in its own
// format (cpu/serial/accumulate-f16, cuda/cub-acc16).
TEST(Registry, EveryBackendRunsOnARegisteredApi) {
    for (const auto& backend : registered_backends()) {
        ASSERT_NE(find_device_api(backend.device), nullptr) << backend.name;
        const bool host = backend.device == Device::cpu;
        EXPECT_EQ(backend.devices, host ? 0 : 1) << backend.name;
        EXPECT_EQ(backend.cache, host ? Cache::warm : Cache::cold) << backend.name;
        EXPECT_FALSE(backend.element_types.empty()) << backend.name;
        if (backend.takes(ElementType::f32)) continue;
        for (ElementType type : backend.element_types) {
            const Accumulator accumulator = backend.traits_for(type).accumulator;
            EXPECT_TRUE((type == ElementType::f16 && accumulator == Accumulator::f16) ||
                        (type == ElementType::bf16 && accumulator == Accumulator::bf16))
                << backend.name << " takes no float32, yet sums " << to_string(type) << " in " << to_string(accumulator);
        }
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
        EXPECT_EQ(is_reference(backend.traits.role), backend.traits.accumulator == Accumulator::none) << backend.name;
    }
}

TEST(Registry, EveryBackendDescribesItself) {
    const std::regex stable_name("[a-z0-9]+(/[a-z0-9_.+-]+)+");
    for (const auto& backend : registered_backends()) {
        EXPECT_TRUE(std::regex_match(backend.name, stable_name)) << backend.name;
        // nccl/* run on CUDA devices; mpi/* on either, in several processes.
        if (backend.name.starts_with("nccl/")) EXPECT_TRUE(backend.multi_gpu && backend.device == Device("cuda")) << backend.name;
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
