// Every CPU backend against the error bound its traits promise for each element type it takes
// (tests/error_bounds.hpp), on 2^24 uniform floats, 2^21 doubles and 2^20 values of each 16-bit
// type, and against the reproducibility it declares, across runs and thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "exact/exact_sum.hpp"
#include "bench/cli.hpp"
#include "bench/inputs.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"

namespace shootout {
namespace {

using bounds::Problem;

// The CPU backends SHOOTOUT_ACCURACY_BACKENDS names in --backend's syntax, every one when it is unset:
// the runs under emulated SVE check only the backends whose kernels SVE changes.
std::vector<const Backend*> available_cpu_summing_backends() {
    const char* spec = std::getenv("SHOOTOUT_ACCURACY_BACKENDS");
    std::vector<const Backend*> list;
    for (const Backend* b : select_backends(spec != nullptr ? spec : "cpu"))
        if (b->device == Device::cpu && b->traits.accumulator != Accumulator::none) {
            if (auto why = b->why_unavailable()) std::cout << "not checked here: " << b->name << ": " << *why << '\n';
            else list.push_back(b);
        }
    if (list.empty()) throw std::logic_error("no CPU backend to check: SHOOTOUT_ACCURACY_BACKENDS matches none available");
    return list;
}

constexpr int kThreadCounts[] = {1, 2, 3, 4, 7};

const Backend& backend(const char* name) {
    const Backend* b = find_backend(name);
    if (b == nullptr) throw std::logic_error(std::string(name) + " is not registered");
    return *b;
}

template <class T>
double sum_with(const Backend& b, std::span<const T> input, int threads) {
    auto reduction = b.prepare(input, {.threads = threads});
    reduction->run();
    return reduction->result();
}

// Uniform values in [0, 1): all positive, so sum |x| = S. Floats from the harness's generator, 2^24
// of them, where float accumulation's error bounds run out; float16 and bfloat16 from it too, 2^20
// of them (float accumulation's bound is n u = 1/16 there, and a 16-bit total long stalled); doubles
// with all 53 bits random, 2^21. Fewer of the others than of floats: every parallel backend takes
// them too, and the suite runs under emulation at two SVE lengths (tests/CMakeLists.txt).
template <class T>
struct Uniform {
    std::vector<T> data;
    ExactAccumulator exact;

    Uniform() {
        if constexpr (std::is_same_v<T, double>) {
            data = uniform_values<double>(std::size_t{1} << 21, 7);
        } else {
            data.resize(std::size_t{1} << (std::is_same_v<T, float> ? 24 : 20));
            InputSpec spec;
            spec.seed = 7;
            fill(std::span<T>(data), spec);
        }
        exact = exact_sum_of(data);
    }
    std::span<const T> input() const { return data; }
    Problem problem(int threads) const { return {data.size(), exact.round(), exact.round(), threads}; }
    double error(const Backend& b, int threads) const { return absolute_error(sum_with(b, input(), threads), exact); }
};

class UniformInput : public ::testing::Test {
protected:
    // Made once per type, on first use: a type no backend takes costs nothing.
    template <class T>
    static const Uniform<T>& uniform() {
        static const Uniform<T> made;
        return made;
    }
};

TEST_F(UniformInput, EveryBackendIsWithinTheBoundOfItsTraitsAtEveryThreadCount) {
    std::map<ElementType, int> checked;
    for (const Backend* b : available_cpu_summing_backends()) {
        for_each_element_type(*b, [&]<class T>(std::type_identity<T>) {
            const Uniform<T>& u = uniform<T>();
            const Traits& traits = b->traits_for(element_type_of<T>);
            for (int threads : kThreadCounts) {
                if (!b->parallel && threads > 1) break;
                const double bound = bounds::for_traits(traits, u.problem(threads)).value();
                if (std::isinf(bound)) continue;  // the analysis says nothing at this size
                ++checked[element_type_of<T>];
                EXPECT_LE(u.error(*b, threads), bound)
                    << b->name << " with " << threads << " threads: outside the bound of accumulator "
                    << to_string(traits.accumulator) << ", order " << to_string(traits.order);
            }
        });
    }
    for (ElementType type : kElementTypes) EXPECT_GT(checked[type], 0) << to_string(type);
}

TEST_F(UniformInput, ReproducibleBackendsGiveTheSameBitsOnEveryRun) {
    for (const Backend* b : available_cpu_summing_backends()) {
        if (b->traits.reproducibility == Reproducibility::none) continue;
        for_each_element_type(*b, [&]<class T>(std::type_identity<T>) {
            for (int threads : {2, 3}) {
                if (!b->parallel && threads > 2) break;
                auto reduction = b->prepare(uniform<T>().input(), {.threads = threads});
                reduction->run();
                const double first = reduction->result();
                for (int run = 0; run < 3; ++run) {
                    reduction->run();
                    EXPECT_EQ(reduction->result(), first) << b->name << " with " << threads << " threads, run " << run;
                }
            }
        });
    }
}

TEST_F(UniformInput, BackendsReproducibleForAnyThreadCountGiveTheSameBitsForEach) {
    for (const Backend* b : available_cpu_summing_backends()) {
        if (b->traits.reproducibility != Reproducibility::any_thread_count || !b->parallel) continue;
        for_each_element_type(*b, [&]<class T>(std::type_identity<T>) {
            const double one_thread = sum_with(*b, uniform<T>().input(), 1);
            for (int threads : kThreadCounts)
                EXPECT_EQ(sum_with(*b, uniform<T>().input(), threads), one_thread) << b->name << ", " << threads << " threads";
        });
    }
}

// Whether a sum keeps addends below half an ulp of its running total: a double total of floats, a
// compensated sum, an exact one.
bool keeps_tiny_addends(Accumulator accumulator, ElementType type) {
    switch (accumulator) {
        case Accumulator::f64: return type != ElementType::f64;
        case Accumulator::compensated_f32:
        case Accumulator::compensated_f64:
        case Accumulator::exact: return true;
        default: return false;
    }
}

// 2048 alternating +1 and -1, then 2^20 + 1000 addends of 2^-30 (2^-60 for doubles, 2^-24 for
// 16-bit values), from an odd offset. With an even lane count every lane holds +k or -k when the
// tiny addends come, each below half an ulp of it: a plain sum in the element type drops them all,
// and Kahan lanes keep them in their compensations, which are not zero at the end (a lane's share
// is no multiple of its ulp). For floats every partial sum is a multiple of 2^-30 below 2^11 (41
// bits), so double accumulation is exact; compensated summation in either type is exact too, as its
// every lost part is a value of the type it keeps (a multiple of the tiny addend below 2^20 of
// them); and S = (2^20 + 1000) t is exact in either type. A kernel that drops its lanes'
// compensations at the end (the seed article's) stays inside the bound above, since the lanes
// cancel, but is off here by up to half an ulp of k per lane against a tiny S.
template <class T>
void check_tiny_addends_after_cancelling_lanes() {
    const T kTinyAddend(std::is_same_v<T, double> ? 0x1p-60 : std::is_same_v<T, float> ? 0x1p-30 : 0x1p-24);
    constexpr std::size_t kSigned = 2048, kTiny = (std::size_t{1} << 20) + 1000;
    std::vector<T> data(1 + kSigned + kTiny, kTinyAddend);
    for (std::size_t i = 0; i < kSigned; ++i) data[1 + i] = T(i % 2 ? -1.0 : 1.0);
    const std::span<const T> input(data.data() + 1, data.size() - 1);
    const double exact = static_cast<double>(kTiny) * static_cast<double>(kTinyAddend);
    ASSERT_EQ(exact_sum_of(input).round(), exact);
    int checked = 0;
    for (const Backend* b : available_cpu_summing_backends()) {
        if (!b->takes(element_type_of<T>) || !keeps_tiny_addends(b->traits_for(element_type_of<T>).accumulator, element_type_of<T>)) continue;
        ++checked;
        EXPECT_EQ(sum_with(*b, input, 3), exact) << b->name;
    }
    EXPECT_GT(checked, 0);
}

TEST(TinyAddendsAfterCancellingLanes, DoubleAndCompensatedBackendsKeepEveryOneOfFloats) {
    check_tiny_addends_after_cancelling_lanes<float>();
}
TEST(TinyAddendsAfterCancellingLanes, CompensatedBackendsKeepEveryOneOfDoubles) {
    check_tiny_addends_after_cancelling_lanes<double>();
}
// 16-bit inputs, their tiny addend 2^-24 (float16's smallest value): summed in float, 1 + 2^-24 ties
// back to 1; compensated and wider sums keep it.
TEST(TinyAddendsAfterCancellingLanes, DoubleAndCompensatedBackendsKeepEveryOneOf16BitValues) {
    check_tiny_addends_after_cancelling_lanes<Float16>();
    check_tiny_addends_after_cancelling_lanes<BFloat16>();
}

// The bounds can fail: a single running float total, and float lanes, break the tight ones by far.
TEST_F(UniformInput, TheBoundsRejectFloatAccumulation) {
    const Uniform<float>& u = uniform<float>();
    const double float_total = u.error(backend("cpu/serial/accumulate-f32"), 1);
    EXPECT_GT(float_total, bounds::kahan(u.problem(1), bounds::kFloatU));
    EXPECT_GT(float_total, bounds::pairwise(u.problem(1), bounds::kFloatU));
    const double float_lanes = u.error(backend("cpu/serial/unrolled"), 1);
    EXPECT_GT(float_lanes, bounds::any_order(u.problem(1), bounds::kDoubleU));
}

// A 16-bit running total of uniform values in [0, 1) stalls where half its ulp passes them: at
// 2048 in float16 (ulp 2), at 256 in bfloat16 (ulp 2); a float total of the same values does not.
TEST_F(UniformInput, A16BitTotalStallsWhereHalfItsUlpPassesTheAddends) {
    EXPECT_EQ(sum_with(backend("cpu/serial/accumulate-f16"), uniform<Float16>().input(), 1), 2048.0);
    EXPECT_EQ(sum_with(backend("cpu/serial/accumulate-bf16"), uniform<BFloat16>().input(), 1), 256.0);
    const Uniform<Float16>& u = uniform<Float16>();
    EXPECT_LT(u.error(backend("cpu/serial/accumulate-f32"), 1), bounds::any_order(u.problem(1), bounds::kFloatU));
    EXPECT_GT(u.exact.round(), 1e5);
}

// And in double: a running double total of doubles breaks compensated and pairwise summation's
// bounds, and a result missing the largest element breaks every double bound.
TEST_F(UniformInput, TheBoundsRejectADoubleRunningTotalAndAMissingElement) {
    const Uniform<double>& u = uniform<double>();
    const double double_total = u.error(backend("cpu/serial/accumulate-f64"), 1);
    EXPECT_GT(double_total, bounds::kahan(u.problem(1), bounds::kDoubleU));
    EXPECT_GT(double_total, bounds::pairwise(u.problem(1), bounds::kDoubleU));
    const double largest = *std::max_element(u.data.begin(), u.data.end());
    const double missing = absolute_error(u.exact.round() - largest, u.exact);
    for (Accumulator accumulator : {Accumulator::f64, Accumulator::compensated_f64})
        for (Order order : {Order::sequential, Order::lanes, Order::pairwise, Order::thread_chunks})
            EXPECT_GT(missing, bounds::for_traits({.accumulator = accumulator, .order = order}, u.problem(4)).value())
                << to_string(accumulator) << ", " << to_string(order);
}

}  // namespace
}  // namespace shootout
