// What is particular to the one-launch backends (gpu/agents/single_pass.cuh): the ticket counter and block
// slots live as long as the prepared reduction and are left ready by each launch for the next, so
// repeated calls, other sizes and other prepared reductions in between must all still give the right,
// and the same, bits. gpu_backends_test.cpp checks them against the exact sum like every CUDA backend;
// tools/single_pass_sweep --check (ctest single_pass.check) looks at the counter itself. Without a
// usable GPU every test reports skipped, with the reason.
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "bench/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {
namespace {

const std::vector<std::string> kSinglePass = {"cuda/single-pass", "cuda/single-pass-f64", "cuda/single-pass-kahan"};

// The result as bits: the widening to double is exact, so equal bits here are equal bits on the device.
std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

std::vector<float> normal(std::size_t n, std::uint64_t seed) {
    std::vector<float> v(n);
    fill(v, Distribution::normal, seed);
    return v;
}

double exact(std::span<const float> v) { return exact_sum(v).round(); }

class SinglePass : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (auto reason = cuda_unbuilt()) GTEST_SKIP() << *reason;
        backend_ = find_backend(GetParam());
        ASSERT_NE(backend_, nullptr) << GetParam() << " is not registered";
        if (auto reason = backend_->why_unavailable()) GTEST_SKIP() << *reason;
    }
    std::unique_ptr<Reduction> prepare(std::span<const float> input, bool include_transfer = false) const {
        return backend_->prepare(input, {.include_transfer = include_transfer});
    }
    double once(std::span<const float> input) const {
        auto reduction = prepare(input);
        reduction->run();
        return reduction->result();
    }

private:
    const Backend* backend_ = nullptr;
};

// Mixed signs: a changed order of additions almost surely changes the bits. The sizes give one block
// (4096 elements are one block's pass), two, a few hundred, and the full resident grid.
TEST_P(SinglePass, FiftyCallsGiveIdenticalBits) {
    const auto data = normal((std::size_t{1} << 24) + 3, 7);
    for (std::size_t n : {std::size_t{4096}, std::size_t{4097}, std::size_t{1000003}, (std::size_t{1} << 24)}) {
        const auto input = std::span<const float>(data).subspan(3, n);
        auto reduction = prepare(input);
        reduction->run();
        const double first = reduction->result();
        for (int call = 1; call < 50; ++call) {
            reduction->run();
            ASSERT_EQ(bits(reduction->result()), bits(first)) << "n=" << n << ", call " << call << ": " << reduction->result() << " vs " << first;
        }
        EXPECT_EQ(bits(once(input)), bits(first)) << "n=" << n << ": another prepared reduction of the same input";
    }
}

TEST_P(SinglePass, FiftyCallsWithTransferGiveIdenticalBits) {
    const auto data = normal(1000003, 8);
    auto reduction = prepare(data, true);
    reduction->run();
    const double first = reduction->result();
    for (int call = 1; call < 50; ++call) {
        reduction->run();
        ASSERT_EQ(bits(reduction->result()), bits(first)) << "call " << call;
    }
}

// Every 4-byte alignment of the input and sizes on either side of the grid's steps, against the
// exact sum (integers: exact in any order).
TEST_P(SinglePass, ExactAtEveryAlignmentAndGridStep) {
    const auto data = small_integers(3 * 4096 * 64 + 16, 1, 11);
    for (std::size_t n : {std::size_t{2}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097}, std::size_t{3 * 4096 + 1},
                          std::size_t{4096 * 64 - 1}, std::size_t{3 * 4096 * 64 + 5}})
        for (std::size_t offset : {0u, 1u, 2u, 3u}) {
            const auto input = std::span<const float>(data).subspan(offset, n);
            EXPECT_EQ(once(input), exact(input)) << "n=" << n << " offset=" << offset;
        }
}

// Preparing another size, and going back: each prepared reduction keeps its own ticket and slots.
TEST_P(SinglePass, ACallAfterACallOfAnotherSize) {
    const auto data = small_integers((std::size_t{1} << 22) + 8, 1, 12);
    const std::span<const float> all(data);
    auto large = prepare(all.subspan(1, std::size_t{1} << 22));
    large->run();
    EXPECT_EQ(large->result(), exact(all.subspan(1, std::size_t{1} << 22)));
    for (std::size_t n : {std::size_t{31}, std::size_t{1000003}, std::size_t{5000}, std::size_t{1}}) {
        auto other = prepare(all.subspan(0, n));
        other->run();
        EXPECT_EQ(other->result(), exact(all.subspan(0, n))) << "n=" << n;
        large->run();
        EXPECT_EQ(large->result(), exact(all.subspan(1, std::size_t{1} << 22))) << "after n=" << n;
    }
}

// Several prepared reductions alive at once, their calls interleaved.
TEST_P(SinglePass, InterleavedPreparedReductions) {
    const auto a = small_integers(1000003, 1, 13), b = small_integers(4097, 1, 14), c = small_integers(300001, 1, 15);
    auto ra = prepare(a), rb = prepare(b), rc = prepare(c, true);
    for (int round = 0; round < 10; ++round) {
        ra->run();
        rb->run();
        rc->run();
        ASSERT_EQ(ra->result(), exact(a)) << "round " << round;
        ASSERT_EQ(rb->result(), exact(b)) << "round " << round;
        ASSERT_EQ(rc->result(), exact(c)) << "round " << round;
    }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Backends, SinglePass, ::testing::ValuesIn(kSinglePass), test_name);

}  // namespace
}  // namespace shootout
