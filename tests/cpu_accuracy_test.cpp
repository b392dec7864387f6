// Every CPU backend against the error bound its traits promise (tests/error_bounds.hpp), on 2^24
// uniform floats, and against the reproducibility it declares, across runs and thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "tests/error_bounds.hpp"
#include "bench/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {
namespace {

using bounds::Problem;

std::vector<const Backend*> available_cpu_summing_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == Device::cpu && b.traits.accumulator != Accumulator::none) {
            if (auto why = b.why_unavailable()) std::cout << "not checked here: " << b.name << ": " << *why << '\n';
            else list.push_back(&b);
        }
    return list;
}

constexpr int kThreadCounts[] = {1, 2, 3, 4, 7};

// 2^24 uniform floats in [0, 1): all positive, so sum |x| = S.
class UniformInput : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        data_ = new std::vector<float>(std::size_t{1} << 24);
        fill(*data_, Distribution::uniform, 7);
        exact_ = exact_sum(*data_).round();
    }
    static void TearDownTestSuite() {
        delete data_;
        data_ = nullptr;
    }

    static const Backend& backend(const char* name) {
        const Backend* b = find_backend(name);
        if (b == nullptr) throw std::logic_error(std::string(name) + " is not registered");
        return *b;
    }
    static double sum_with(const Backend& b, int threads) {
        auto reduction = b.prepare(*data_, {.threads = threads});
        reduction->run();
        return reduction->result();
    }
    static Problem problem(int threads) { return {data_->size(), exact_, exact_, threads}; }

    static std::vector<float>* data_;
    static double exact_;
};
std::vector<float>* UniformInput::data_ = nullptr;
double UniformInput::exact_ = 0;

TEST_F(UniformInput, EveryBackendIsWithinTheBoundOfItsTraitsAtEveryThreadCount) {
    int checked = 0;
    for (const Backend* b : available_cpu_summing_backends()) {
        for (int threads : kThreadCounts) {
            if (!b->parallel && threads > 1) break;
            const double bound = bounds::for_traits(b->traits, problem(threads)).value();
            if (std::isinf(bound)) continue;  // the analysis says nothing at this size
            ++checked;
            EXPECT_LE(std::abs(sum_with(*b, threads) - exact_), bound)
                << b->name << " with " << threads << " threads: outside the bound of accumulator "
                << to_string(b->traits.accumulator) << ", order " << to_string(b->traits.order);
        }
    }
    EXPECT_GT(checked, 0);
}

TEST_F(UniformInput, ReproducibleBackendsGiveTheSameBitsOnEveryRun) {
    for (const Backend* b : available_cpu_summing_backends()) {
        if (b->traits.reproducibility == Reproducibility::none) continue;
        const std::string& name = b->name;
        for (int threads : {2, 3}) {
            if (!b->parallel && threads > 2) break;
            auto reduction = b->prepare(*data_, {.threads = threads});
            reduction->run();
            const double first = reduction->result();
            for (int run = 0; run < 3; ++run) {
                reduction->run();
                EXPECT_EQ(reduction->result(), first) << name << " with " << threads << " threads, run " << run;
            }
        }
    }
}

TEST_F(UniformInput, BackendsReproducibleForAnyThreadCountGiveTheSameBitsForEach) {
    for (const Backend* b : available_cpu_summing_backends()) {
        if (b->traits.reproducibility != Reproducibility::any_thread_count || !b->parallel) continue;
        const double one_thread = sum_with(*b, 1);
        for (int threads : kThreadCounts) EXPECT_EQ(sum_with(*b, threads), one_thread) << b->name << ", " << threads << " threads";
    }
}

// 2048 alternating +1 and -1, then 2^20 + 1000 addends of 2^-30, from an odd offset. With an even
// lane count every lane holds +k or -k when the tiny addends come, each below half an ulp of it: a
// plain float sum drops them all, and Kahan lanes keep them in their compensations, which are not
// zero at the end (a lane's share is no multiple of its ulp). Every partial sum is a multiple of
// 2^-30 below 2^11 (41 bits), so double accumulation is exact; so is compensated float summation,
// whose every lost part is a float it keeps; and S = (2^20 + 1000) 2^-30 is a float. A kernel that
// drops its lanes' compensations at the end stays inside the bound above, since
// the lanes cancel, but is off here by up to half an ulp of k per lane against a tiny S.
TEST(TinyAddendsAfterCancellingLanes, DoubleAndCompensatedBackendsKeepEveryOne) {
    constexpr std::size_t kSigned = 2048, kTiny = (std::size_t{1} << 20) + 1000;
    std::vector<float> data(1 + kSigned + kTiny, 0x1p-30f);
    for (std::size_t i = 0; i < kSigned; ++i) data[1 + i] = i % 2 ? -1.0f : 1.0f;
    const std::span<const float> input(data.data() + 1, data.size() - 1);
    const double exact = static_cast<double>(kTiny) * 0x1p-30;
    ASSERT_EQ(exact_sum(input).round(), exact);
    for (const Backend* b : available_cpu_summing_backends()) {
        if (b->traits.accumulator == Accumulator::f32) continue;
        auto reduction = b->prepare(input, {.threads = 3});
        reduction->run();
        EXPECT_EQ(reduction->result(), exact) << b->name;
    }
}

// The bounds can fail: a single running float total, and float lanes, break the tight ones by far.
TEST_F(UniformInput, TheBoundsRejectFloatAccumulation) {
    const double float_total = sum_with(backend("cpu/serial/accumulate-f32"), 1);
    EXPECT_GT(std::abs(float_total - exact_), bounds::kahan_float(problem(1)));
    EXPECT_GT(std::abs(float_total - exact_), bounds::pairwise_float(problem(1)));
    const double float_lanes = sum_with(backend("cpu/serial/unrolled"), 1);
    EXPECT_GT(std::abs(float_lanes - exact_), bounds::double_accumulation(problem(1)));
}

}  // namespace
}  // namespace shootout
