// A device API the harness has never heard of, added the way a new API folder adds one: a
// DeviceApi record, a DeviceQueue (host memory and a simulated device clock), its DeviceRuntime, and
// a backend registered through it, timed by the device-neutral layer. It runs through the whole
// sweep, CSV included, with no harness file changed: the rows follow the backend's declared rules,
// not its name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "api/device_api.hpp"
#include "api/device_backend.hpp"
#include "api/measurement_rules.hpp"
#include "bench/system_info.hpp"
#include "tests/sweep_support.hpp"

namespace shootout {
namespace {

constexpr Device kFake{"fake"};
constexpr std::size_t kFakeCacheBytes = 1 << 20;

// The fake device's energy counter: none, one that steps as a real one does, or one stuck.
enum class FakeCounter { none, stepping, stuck };
// The stepping counter: the device draws kFakeWatts, and the counter moves every kFakeCounterStepNs.
constexpr double kFakeWatts = 250, kFakeCounterStepNs = 20e6;

// What the fake device saw, for the tests to check, and how it behaves.
struct FakeLog {
    std::set<std::size_t> offsets_read;  // input copies the calls read
    std::size_t largest_allocation = 0;
    int visible = 2;
    FakeCounter counter = FakeCounter::none;
};
FakeLog& log() {
    static FakeLog instance;
    return instance;
}

struct FakeMemory final : DeviceQueue::Memory {
    explicit FakeMemory(std::size_t bytes) : bytes(bytes) {}
    std::vector<std::byte> bytes;
};

FakeMemory& fake(DeviceQueue::Memory& memory) { return static_cast<FakeMemory&>(memory); }
const FakeMemory& fake(const DeviceQueue::Memory& memory) { return static_cast<const FakeMemory&>(memory); }

// A queue whose work runs at once and whose clock advances by what the work would take on a device
// of 100 GB/s with 2 us per launch, so that timings are known.
class FakeQueue final : public DeviceQueue {
public:
    std::size_t cache_bytes() const override { return kFakeCacheBytes; }
    std::unique_ptr<Memory> allocate(std::size_t bytes) override {
        log().largest_allocation = std::max(log().largest_allocation, bytes);
        return std::make_unique<FakeMemory>(bytes);
    }
    std::shared_ptr<void> allocate_staging(std::size_t bytes) override {
        return {::operator new(bytes), [](void* p) { ::operator delete(p); }};
    }
    void copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) override {
        std::memcpy(fake(to).bytes.data() + offset, from, bytes);
        advance(bytes);
    }
    void copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) override {
        std::memmove(fake(to).bytes.data() + to_offset, fake(from).bytes.data() + from_offset, bytes);
        advance(2 * bytes);
    }
    void start_timer() override { start_ = clock_ns_; }
    double stop_timer() override { return (clock_ns_ - start_) * 1e-9; }
    void finish() override {}
    Energy energy_counter() override {
        switch (log().counter) {
            case FakeCounter::none: return {};
            case FakeCounter::stuck: return {.joules = 1000};
            case FakeCounter::stepping: break;
        }
        return {.joules = std::floor(clock_ns_ / kFakeCounterStepNs) * kFakeCounterStepNs * 1e-9 * kFakeWatts};
    }

    void advance(std::size_t bytes) { clock_ns_ += 2000 + static_cast<double>(bytes) / 100; }

private:
    double clock_ns_ = 0, start_ = 0;
};

// The fake backend's call: sums the copy in double, as a device kernel would.
class FakeSum final : public DeviceCall {
public:
    FakeSum(FakeQueue& queue, Elements input) : queue_(queue), type_(input.type()), n_(input.size()) {}

    void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool) override {
        log().offsets_read.insert(offset);
        const std::byte* bytes = fake(input).bytes.data() + offset;
        const Elements copy = [&]() -> Elements {
            switch (type_) {
                case ElementType::f64: return std::span(reinterpret_cast<const double*>(bytes), n_);
                case ElementType::f16: return std::span(reinterpret_cast<const Float16*>(bytes), n_);
                case ElementType::bf16: return std::span(reinterpret_cast<const BFloat16*>(bytes), n_);
                case ElementType::f32: break;
            }
            return std::span(reinterpret_cast<const float*>(bytes), n_);
        }();
        sum_ = copy.visit([](auto values) {
            double total = 0;
            for (auto x : values) total += static_cast<double>(x);
            return total;
        });
        queue_.advance(input_bytes(type_, n_));
    }
    double result() override { return sum_; }

private:
    FakeQueue& queue_;
    ElementType type_;
    std::size_t n_;
    double sum_ = 0;
};

[[maybe_unused]] const bool api_registered = register_device_api({
    .device = kFake,
    .backend_patterns = {"fake/*"},
    .visible_devices = [] { return std::vector<std::string>(static_cast<std::size_t>(log().visible), "Fake GPU"); },
});

// The fake API's part of its backends, as a new API folder's runtime states it.
using MakeFakeCall = std::function<std::unique_ptr<DeviceCall>(FakeQueue& queue, Elements input)>;
std::unique_ptr<DeviceCall> make_fake_call(const DeviceBackendSpec<MakeFakeCall>& backend, DeviceQueue& queue, Elements input) {
    return backend.make(static_cast<FakeQueue&>(queue), input);
}
constexpr DeviceRuntime<MakeFakeCall> kFakeRuntime{
    .device = kFake,
    .why_no_device = []() -> std::optional<std::string> { return std::nullopt; },
    .device_info = [] { return DeviceInfo{.name = "Fake GPU", .peak_gbps = 100, .visible = log().visible}; },
    .make_queue = []() -> std::unique_ptr<DeviceQueue> { return std::make_unique<FakeQueue>(); },
    .make_call = make_fake_call,
};

[[maybe_unused]] const bool backend_registered = register_device_backend(kFakeRuntime, {
    .name = "fake/sum",
    .description = "a double sum on a simulated device",
    .traits = {.accumulator = Accumulator::f64, .order = Order::sequential, .reproducibility = Reproducibility::any_thread_count},
    .make = [](FakeQueue& queue, Elements input) { return std::make_unique<FakeSum>(queue, input); },
    .element_types = {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16},
});

TEST(FakeDevice, RunsThroughTheWholeSweepByItsDeclaredRules) {
    const SweepResult r = sweep({"--backend=fake", "--sizes=2^10,2^12", "--dtype=f32,f64,f16,bf16", "--input=ones", "--include-transfer"});
    ASSERT_EQ(r.status, 0) << r.err;
    // Per size and type: isolated, batched, and isolated with the transfer.
    ASSERT_EQ(r.rows.size(), 2u * 4u * 3u) << r.out;
    std::set<std::string> timings, devices, dtypes;
    for (const auto& row : r.rows) {
        EXPECT_EQ(row.at("backend"), "fake/sum");
        EXPECT_EQ(row.at("cache"), "cold");
        EXPECT_EQ(row.at("gpu"), "Fake GPU");
        EXPECT_EQ(row.at("gpus"), "1");
        EXPECT_EQ(row.at("pages"), "");  // device memory
        EXPECT_EQ(row.at("rel_error"), "0");
        EXPECT_EQ(std::stod(row.at("result")), std::stod(row.at("n")));
        const std::optional<ElementType> dtype = element_type_named(row.at("dtype"));
        ASSERT_TRUE(dtype) << row.at("dtype");
        const std::uint64_t bytes = input_bytes(*dtype, std::stoull(row.at("n")));
        EXPECT_EQ(row.at("bytes"), std::to_string(bytes));
        // The simulated clock: 2 us per launch and 100 GB/s, so an isolated call of 2^12 floats
        // takes 2 us + 16384 / 100 ns, and so does each call of a batch.
        if (row.at("timing") == "batched") {
            EXPECT_NEAR(std::stod(row.at("time_ns_median")), 2000 + static_cast<double>(bytes) / 100, 0.05) << row.at("n");  // CSV: %.1f
        }
        timings.insert(row.at("timing"));
        devices.insert(row.at("device"));
        dtypes.insert(row.at("dtype"));
    }
    EXPECT_EQ(timings, (std::set<std::string>{"isolated", "batched"}));
    EXPECT_EQ(devices, (std::set<std::string>{"fake", "fake+h2d"}));
    EXPECT_EQ(dtypes, (std::set<std::string>{"f32", "f64", "f16", "bf16"}));
}

// Batched rows carry the energy of a call, from a window of whole steps of the device's counter:
// the fake device draws kFakeWatts, so a call costs that times its time. Isolated rows have none.
TEST(FakeDevice, BatchedRowsCarryTheEnergyOfACall) {
    log().counter = FakeCounter::stepping;
    const SweepResult r = sweep({"--backend=fake", "--sizes=16,256", "--input=ones"});
    log().counter = FakeCounter::none;
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 4u) << r.out;
    for (const auto& row : r.rows) {
        if (row.at("timing") == "isolated") {
            EXPECT_EQ(row.at("energy_j"), "");
            EXPECT_EQ(row.at("gb_per_j"), "");
            continue;
        }
        const double joules = kFakeWatts * std::stod(row.at("time_ns_median")) * 1e-9;
        EXPECT_NEAR(std::stod(row.at("energy_j")), joules, 0.01 * joules) << row.at("n");
        EXPECT_NEAR(std::stod(row.at("gb_per_j")), std::stod(row.at("bytes")) * 1e-9 / std::stod(row.at("energy_j")), 1e-5 * std::stod(row.at("gb_per_j")));
    }
    EXPECT_EQ(r.out.find("energy_j left empty"), std::string::npos) << r.out;
}

// A counter that never moves measures nothing: the energy is left empty, and the run says why once.
TEST(FakeDevice, ACounterThatDoesNotMoveLeavesTheEnergyEmptySayingWhy) {
    log().counter = FakeCounter::stuck;
    const SweepResult r = sweep({"--backend=fake", "--sizes=16,32", "--input=ones"});
    log().counter = FakeCounter::none;
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 4u) << r.out;
    for (const auto& row : r.rows) EXPECT_EQ(row.at("energy_j"), "") << row.at("timing");
    const std::string note = "energy_j left empty on fake: the energy counter did not move in 5 s of device time\n";
    ASSERT_NE(r.out.find(note), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(note), r.out.rfind(note)) << "said once: " << r.out;
}

// Inputs below 4x the device's last-level cache rotate through copies spanning that much.
TEST(FakeDevice, InputsRotatePastFourTimesTheCache) {
    log().offsets_read.clear();
    const std::vector<float> input(1000, 1.0f);  // 4000 bytes: one 4096-byte copy slot each
    const auto reduction = find_backend("fake/sum")->prepare(input, {.batch = 8});
    reduction->run();
    const std::size_t copies = rules::kL2RotationFactor * kFakeCacheBytes / 4096;
    for (std::size_t call = 0; call < copies; ++call) reduction->run_batch(1);
    EXPECT_EQ(log().offsets_read.size(), copies);
    EXPECT_GE(log().largest_allocation, rules::kL2RotationFactor * kFakeCacheBytes);
    EXPECT_EQ(reduction->result(), 1000.0);
}

// The new API's group is selectable, an unbuilt API is refused naming why, and its devices count in
// the machine's fingerprint.
TEST(FakeDevice, IsAGroupListedAndFingerprinted) {
    ASSERT_EQ(select_backends("fake").size(), 1u);
    EXPECT_EQ(select_backends("fake").front()->name, "fake/sum");
    const std::string two = machine_identity();
    log().visible = 3;
    EXPECT_NE(machine_identity(), two);
    log().visible = 2;
    EXPECT_EQ(machine_identity(), two);
}

}  // namespace
}  // namespace shootout
