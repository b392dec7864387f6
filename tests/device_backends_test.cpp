// Every registered backend of every device API against the exact sum, in every element type it
// takes, through the device-neutral timing layer: one suite, whatever the API, so that a new API's
// backends are held to it without a line here. Where a backend cannot run (no driver, no device, an
// extension its device lacks) each test reports skipped, with the reason it gives. What differs by
// API is checked in tests/device_backends_<api>.cpp, which also registers the API's hooks (a CPU
// implementation, the Vulkan validation layer's errors).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "api/device_api.hpp"
#include "api/launch_tuning.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"
#include "tests/error_bounds.hpp"

namespace shootout {

inline void PrintTo(const DeviceApi* api, std::ostream* os) { *os << api->device.name(); }

namespace {

using device_checks::device_backends;
using device_checks::exact_integers;

class EveryDeviceBackend : public device_checks::DeviceBackendTest {
protected:
    // The exact sum of integers every order sums exactly; NaN from a backend that sums nothing.
    template <class T>
    void expect_exact(std::span<const T> input, bool include_transfer = false) {
        if (!sums(backend())) {
            EXPECT_TRUE(std::isnan(device_sum(backend(), input, include_transfer))) << "sums nothing, n=" << input.size();
            return;
        }
        EXPECT_EQ(device_sum(backend(), input, include_transfer), exact_sum_of(input).round())
            << "n=" << input.size() << (include_transfer ? " with transfer" : "");
    }
};

TEST_P(EveryDeviceBackend, EmptyIsZero) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing (EveryLaunchFloor checks the floor's empty input)";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        EXPECT_EQ(device_sum(backend(), std::span<const T>()), 0.0);
        EXPECT_EQ(device_sum(backend(), std::span<const T>(), true), 0.0);
    });
}

// One to three elements, sizes with a tail past the last 16-byte vector, one and several work-groups
// (4099), a full grid, each from starts 1 and 3 elements off the 16-byte vectors too.
// compute-sanitizer runs these on the CUDA backends (scripts/gpu_check.sh).
TEST_P(EveryDeviceBackend, ExactOnSmallOddAndUnalignedSizes) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = exact_integers<T>(backend(), 1000003 + 3, 1);
        for (std::size_t n : {1u, 2u, 3u, 31u, 1000u, 4099u, 1000003u})
            for (std::size_t offset : {0u, 1u, 3u}) expect_exact(std::span<const T>(data).subspan(offset, n));
    });
}

// Every element nonzero: a lost or repeated one changes the sum.
TEST_P(EveryDeviceBackend, ExactOn2To22Plus5) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { expect_exact<T>(exact_integers<T>(backend(), (1u << 22) + 5, 2)); });
}

// Past 2^24 elements, where a float index or count would round. Not on a CPU implementation, where
// 2^22 + 5 stands for it at a quarter of the time.
TEST_P(EveryDeviceBackend, ExactOn2To24Plus5) {
    if (device_checks::on_cpu(backend())) GTEST_SKIP() << "a CPU implementation: " << backend().device_info().name;
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { expect_exact<T>(exact_integers<T>(backend(), (1u << 24) + 5, 2)); });
}

TEST_P(EveryDeviceBackend, ExactWithHostToDeviceTransfer) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        for (std::size_t n : {100003u, 1000003u}) expect_exact<T>(exact_integers<T>(backend(), n, 3), true);
    });
}

// Above 2^31 elements, where 32-bit indices wrap, in every type the backend takes: the exact sum, or
// the size refused as too large for the device (skipped, saying why). Not on a CPU implementation,
// where 8 GiB would take minutes.
TEST_P(EveryDeviceBackend, ExactAbove2To31Elements) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    if (device_checks::on_cpu(backend())) GTEST_SKIP() << "a CPU implementation: " << backend().device_info().name;
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        if (device_checks::kAbove2To31Sum > exact_up_to(backend().traits_for(element_type_of<T>).accumulator)) {
            std::cout << "[ SKIPPED  ] " << to_string(element_type_of<T>) << ": its accumulator cannot hold " << device_checks::kAbove2To31Sum << '\n';
            return;
        }
        try {
            EXPECT_EQ(device_sum(backend(), std::span<const T>(device_checks::above_2_to_31<T>())), device_checks::kAbove2To31Sum);
        } catch (const ResourceExhausted& e) {
            GTEST_SKIP() << "refused: " << e.what();
        }
    });
}

// The bound the backend's traits for the type promise (tests/error_bounds.hpp).
TEST_P(EveryDeviceBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        for (std::size_t n : {(1u << 20) + 3, (1u << 22) + 3}) device_checks::within_the_bound_of_its_traits<T>(backend(), n);
    });
}

// Each float is added as the terms its accumulator declares (bounds::as_added), rounded no more and
// no less. Two inputs whose sums every order adds exactly in float: 2049 floats 1 + 2^-12 (13
// significant bits) among zeros, every 512th element, partial sums under 2^12 (24 bits), which one
// TF32 term rounds to 1; and two floats 1 + 2^-12 + 2^-23 (24 bits), one in a whole tile and one in
// the tail, whose rest after an 11-bit head, 12 bits, the split's second term rounds.
TEST_P(EveryDeviceBackend, AddsEachFloatAsItsAccumulatorDeclares) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    if (!backend().takes(ElementType::f32)) GTEST_SKIP() << "takes no float input";
    const Accumulator accumulator = backend().traits_for(ElementType::f32).accumulator;
    const auto expect_as_added = [&](const std::vector<float>& v) {
        double expected = 0;  // exact in double
        for (float x : v) expected += bounds::as_added(x, accumulator);
        EXPECT_EQ(device_sum(backend(), v), expected) << "accumulator " << to_string(accumulator) << ", exact sum " << exact_sum(v).round();
    };
    std::vector<float> sparse((1u << 20) + 3, 0.0f);
    for (std::size_t i = 1; i < sparse.size(); i += 512) sparse[i] = 1 + 0x1p-12f;
    expect_as_added(sparse);
    std::vector<float> pair((1u << 20) + 3, 0.0f);
    pair[5] = pair[pair.size() - 2] = 1 + 0x1p-12f + 0x1p-23f;
    expect_as_added(pair);
}

// A backend that declares itself reproducible gives the same bits on every call, isolated or batched.
TEST_P(EveryDeviceBackend, ReproducibleBackendsGiveTheSameBitsOnEveryCall) {
    if (!sums(backend()) || backend().traits.reproducibility == Reproducibility::none) GTEST_SKIP() << "declares no reproducibility";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::the_same_bits_on_every_call<T>(backend(), 20); });
}

// A batch leaves the same sum as one call: in-place kernels get a fresh copy for each call, and a
// batch longer than one submission's commands (Vulkan's) is submitted whole.
TEST_P(EveryDeviceBackend, BatchedCallsSumTheInputEachTime) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::every_batched_call_sums_the_input<T>(backend(), exact_integers<T>(backend(), 1000003, 4), 5, 3);
        device_checks::every_batched_call_sums_the_input<T>(backend(), exact_integers<T>(backend(), 100003, 4), 70, 2);
    });
}

// Every shape the tuner can pick sums exactly, the last round of loads cut short and a tail of odd
// elements: every group size with every count of loads (each a program or pipeline of its own), the
// groups a compute unit and the calls in flight taken in turn over them (the grid's cap only: capped
// at the fewest, not at the most), a batch using every call's scratch twice; the configuration says
// the shape was forced.
TEST_P(EveryDeviceBackend, ExactAtEveryShapeTheTunerCanPick) {
    const auto space = device_checks::launch_space(backend());
    if (!space) GTEST_SKIP() << "not tuned";
    const std::size_t n = 3 * (std::size_t{1} << 16) + 1001;
    const auto data = small_integers<float>(n, 1, 5);
    const float exact = exact_sum_of(std::span<const float>(data)).round();
    std::size_t turn = 0;
    for (const std::uint32_t group_size : space->group_sizes) {
        for (const std::uint32_t loads : space->loads) {
            const LaunchKnobs knobs{group_size, loads, space->groups_per_unit[turn % space->groups_per_unit.size()],
                                    space->in_flight[turn % space->in_flight.size()]};
            ++turn;
            set_forced_launch(knobs);
            auto reduction = backend().prepare(data, {});
            // More calls than are in flight: every set of scratch used, then used again.
            reduction->run_batch(static_cast<int>(2 * knobs.in_flight + 1));
            EXPECT_EQ(reduction->result(), exact) << knobs.text();
            EXPECT_NE(reduction->configuration().find(" shape=forced"), std::string::npos) << knobs.text() << ": " << reduction->configuration();
        }
    }
    set_forced_launch(std::nullopt);
}

TEST_P(EveryDeviceBackend, NanAndInfinityPropagate) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::nan_and_infinity_propagate<T>(backend()); });
}

// The CSV's gpu column names the device; the rows follow the device layer's rules.
TEST_P(EveryDeviceBackend, NamesItsDevice) {
    ASSERT_TRUE(backend().device_info);
    EXPECT_FALSE(backend().device_info().name.empty());
    EXPECT_EQ(backend().timing, Timing::device_events);
    EXPECT_EQ(backend().cache, Cache::cold);
    EXPECT_EQ(backend().devices, 1);
    EXPECT_TRUE(backend().supports_transfer);
    EXPECT_TRUE(backend().batches);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryDeviceBackend, ::testing::ValuesIn(device_backends()), backend_test_name);
// A build without device APIs has no backends to instantiate the suites with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryDeviceBackend);

// Each API's launch floor (Role::launch_floor): one empty launch per call on the queue its
// reductions use, result NaN, its rows timed isolated and batched like theirs, a batch longer than
// one submission's commands included.
class EveryLaunchFloor : public device_checks::DeviceBackendTest {};

TEST_P(EveryLaunchFloor, SumsNothingAndTakesTime) { device_checks::a_launch_floor_sums_nothing(backend(), 70); }

TEST_P(EveryLaunchFloor, MeasuresIsolatedAndBatchedRows) { device_checks::a_launch_floor_measures_rows(backend().name); }

INSTANTIATE_TEST_SUITE_P(Registry, EveryLaunchFloor,
                         ::testing::ValuesIn(device_backends([](const Backend& b) { return b.traits.role == Role::launch_floor; })),
                         backend_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryLaunchFloor);

// A floor needs nothing but a device: unavailable only where every backend of its API is, with the
// same reason, and where it runs it runs on the device its API's reductions run on.
TEST(DeviceLaunchFloors, RunWhereTheirApisRunOnTheReductionsDevice) {
    for (const Backend* floor : device_backends([](const Backend& b) { return b.traits.role == Role::launch_floor; })) {
        SCOPED_TRACE(floor->name);
        const std::optional<std::string> reason = floor->why_unavailable();
        for (const Backend* other : device_checks::backends_of(floor->device)) {
            if (reason) {
                EXPECT_EQ(other->why_unavailable(), reason) << other->name;
            } else if (sums(*other) && !other->why_unavailable()) {
                EXPECT_EQ(floor->device_info().name, other->device_info().name) << other->name;
            }
        }
    }
}

// Every built device API has backends, and an unbuilt one has none, saying why.
class DeviceApis : public ::testing::TestWithParam<const DeviceApi*> {};

TEST_P(DeviceApis, BuiltOnesHaveBackendsAndUnbuiltOnesSayWhyTheyHaveNone) {
    const DeviceApi& api = *GetParam();
    const auto backends = device_checks::backends_of(api.device);
    if (api.unbuilt) {
        EXPECT_TRUE(backends.empty());
        GTEST_SKIP() << *api.unbuilt;
    }
    EXPECT_FALSE(backends.empty());
}

std::vector<const DeviceApi*> accelerator_apis() {
    std::vector<const DeviceApi*> list;
    for (const DeviceApi& api : device_apis())
        if (api.device != Device::cpu) list.push_back(&api);
    return list;
}
INSTANTIATE_TEST_SUITE_P(Registry, DeviceApis, ::testing::ValuesIn(accelerator_apis()),
                         [](const ::testing::TestParamInfo<const DeviceApi*>& info) { return std::string(info.param->device.name()); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceApis);

// The device backends that take more than floats, the types each takes and what it accumulates each
// in: double for float64 input, float (or Kahan float) for the others unless the backend says double,
// 16 bits for the one that keeps 16-bit input in 16 bits; and the read ceilings, floats only. Where
// they run, floats are never refused. A build without a backend's API skips its row, saying why.
TEST(DeviceElementTypes, EachTakesItsTypesWithTheAccumulatorsItsTraitsName) {
    using E = ElementType;
    using A = Accumulator;
    using Types = std::vector<std::pair<E, A>>;
    // float in `for_f32`, double in `for_f64`, the 16-bit types in `for_16_bit`.
    const auto every_type = [](A for_f32, A for_f64, A for_16_bit) {
        return Types{{E::f32, for_f32}, {E::f64, for_f64}, {E::f16, for_16_bit}, {E::bf16, for_16_bit}};
    };
    const Types floats_and_doubles = {{E::f32, A::f32}, {E::f64, A::f64}}, floats = {{E::f32, A::f32}};
    const std::vector<std::pair<const char*, Types>> expected = {
        {"cuda/single-pass", every_type(A::f32, A::f64, A::f32)},
        {"cuda/single-pass-f64", every_type(A::f64, A::f64, A::f64)},
        {"cuda/single-pass-kahan", every_type(A::compensated_f32, A::compensated_f64, A::compensated_f32)},
        {"cuda/cub", every_type(A::f32, A::f64, A::f32)},
        {"cuda/thrust", every_type(A::f32, A::f64, A::f32)},
        {"cuda/exact", every_type(A::exact, A::exact, A::exact)},
        {"cuda/cub-acc16", {{E::f16, A::f16}, {E::bf16, A::bf16}}},
        {"cuda/baseline/read", floats},
        {"opencl/single-pass", floats_and_doubles},
        {"opencl/single-pass-subgroup", floats_and_doubles},
        {"opencl/tree", floats_and_doubles},
        {"opencl/exact", every_type(A::exact, A::exact, A::exact)},
        {"opencl/baseline/read", floats},
        {"vulkan/single-pass", floats_and_doubles},
        {"vulkan/single-pass-shared", floats_and_doubles},
        {"vulkan/baseline/read", floats},
        {"vulkan/exact", {{E::f32, A::exact}, {E::f16, A::exact}, {E::bf16, A::exact}}},
    };
    for (const auto& [name, types] : expected) {
        SCOPED_TRACE(name);
        const Backend* backend = find_backend(name);
        if (!backend) {
            const DeviceApi* api = unbuilt_api_named_by(name);
            ASSERT_NE(api, nullptr) << "not registered, and no unbuilt API names it";
            std::cout << "[ SKIPPED  ] " << name << ": " << *api->unbuilt << '\n';
            continue;
        }
        std::vector<E> takes;
        for (const auto& [type, accumulator] : types) {
            takes.push_back(type);
            EXPECT_EQ(backend->traits_for(type).accumulator, accumulator) << to_string(type);
        }
        EXPECT_EQ(backend->element_types, takes);
        if (backend->takes(E::f32) && !backend->why_unavailable()) {
            EXPECT_FALSE(backend->why_type_unavailable(E::f32));
        }
    }
}

}  // namespace
}  // namespace shootout
