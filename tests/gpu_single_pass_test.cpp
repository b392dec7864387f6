// What is particular to the one-launch backends (cuda/agents/single_pass.cuh), in every element type
// they take: the ticket counter and block slots live as long as the prepared reduction and are left
// ready by each launch for the next, so repeated calls, other sizes and other prepared reductions in
// between must all still give the right, and the same, bits. device_backends_test.cpp checks them
// against the exact sum like every device backend; tools/single_pass_sweep --check (ctest
// single_pass.check) looks at the counter itself. Without a usable GPU every test reports skipped,
// with the reason.
#include <gtest/gtest.h>

#include <bit>
#include <cctype>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {
namespace {

const std::vector<std::string> kSinglePass = {"cuda/single-pass", "cuda/single-pass-f64", "cuda/single-pass-kahan"};

// The result as bits: the widening to double is exact, so equal bits here are equal bits on the device.
std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// Elements in one block's pass of the registered policy: 256 threads x 4 loads of 16 bytes.
template <class T>
constexpr std::size_t kBlockPass = 256 * 4 * (16 / sizeof(T));

class SinglePass : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (auto reason = cuda_unbuilt()) GTEST_SKIP() << *reason;
        backend_ = find_backend(GetParam());
        ASSERT_NE(backend_, nullptr) << GetParam() << " is not registered";
        if (auto reason = backend_->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *backend_; }
    template <class T>
    std::unique_ptr<Reduction> prepare(std::span<const T> input, bool include_transfer = false) const {
        return backend_->prepare(input, {.include_transfer = include_transfer});
    }
    template <class T>
    double once(std::span<const T> input) const {
        auto reduction = prepare(input);
        reduction->run();
        return reduction->result();
    }

private:
    const Backend* backend_ = nullptr;
};

// Mixed signs: a changed order of additions almost surely changes the bits. The sizes give one block
// (one block's pass), two, a few hundred, and the full resident grid.
TEST_P(SinglePass, FiftyCallsGiveIdenticalBits) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = normal_values<T>((std::size_t{1} << 24) + 3, 7);
        for (std::size_t n : {kBlockPass<T>, kBlockPass<T> + 1, std::size_t{1000003}, std::size_t{1} << 24}) {
            const auto input = std::span<const T>(data).subspan(3, n);
            auto reduction = prepare(input);
            reduction->run();
            const double first = reduction->result();
            for (int call = 1; call < 50; ++call) {
                reduction->run();
                ASSERT_EQ(bits(reduction->result()), bits(first))
                    << "n=" << n << ", call " << call << ": " << reduction->result() << " vs " << first;
            }
            EXPECT_EQ(bits(once(input)), bits(first)) << "n=" << n << ": another prepared reduction of the same input";
        }
    });
}

TEST_P(SinglePass, FiftyCallsWithTransferGiveIdenticalBits) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = normal_values<T>(1000003, 8);
        auto reduction = prepare(std::span<const T>(data), true);
        reduction->run();
        const double first = reduction->result();
        for (int call = 1; call < 50; ++call) {
            reduction->run();
            ASSERT_EQ(bits(reduction->result()), bits(first)) << "call " << call;
        }
    });
}

// Every element alignment within a 16-byte vector and sizes on either side of the grid's steps,
// against the exact sum (integers: exact in any order).
TEST_P(SinglePass, ExactAtEveryAlignmentAndGridStep) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        constexpr std::size_t pass = kBlockPass<T>, lanes = 16 / sizeof(T);
        const auto data = small_integers<T>(3 * pass * 64 + 2 * lanes, 1, 11);
        for (std::size_t n : {std::size_t{2}, pass - 1, pass, pass + 1, 3 * pass + 1, pass * 64 - 1, 3 * pass * 64 + 5})
            for (std::size_t offset = 0; offset < lanes; ++offset) {
                const auto input = std::span<const T>(data).subspan(offset, n);
                EXPECT_EQ(once(input), exact_sum_of(input).round()) << "n=" << n << " offset=" << offset;
            }
    });
}

// Preparing another size, and going back: each prepared reduction keeps its own ticket and slots.
TEST_P(SinglePass, ACallAfterACallOfAnotherSize) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>((std::size_t{1} << 22) + 8, 1, 12);
        const std::span<const T> all(data);
        const auto large_input = all.subspan(1, std::size_t{1} << 22);
        const double large_exact = exact_sum_of(large_input).round();
        auto large = prepare(large_input);
        large->run();
        EXPECT_EQ(large->result(), large_exact);
        for (std::size_t n : {std::size_t{31}, std::size_t{1000003}, std::size_t{5000}, std::size_t{1}}) {
            auto other = prepare(all.subspan(0, n));
            other->run();
            EXPECT_EQ(other->result(), exact_sum_of(all.subspan(0, n)).round()) << "n=" << n;
            large->run();
            EXPECT_EQ(large->result(), large_exact) << "after n=" << n;
        }
    });
}

// Several prepared reductions alive at once, their calls interleaved.
TEST_P(SinglePass, InterleavedPreparedReductions) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto a = small_integers<T>(1000003, 1, 13), b = small_integers<T>(4097, 1, 14), c = small_integers<T>(300001, 1, 15);
        const double sa = exact_sum_of(a).round(), sb = exact_sum_of(b).round(), sc = exact_sum_of(c).round();
        auto ra = prepare(std::span<const T>(a)), rb = prepare(std::span<const T>(b)), rc = prepare(std::span<const T>(c), true);
        for (int round = 0; round < 10; ++round) {
            ra->run();
            rb->run();
            rc->run();
            ASSERT_EQ(ra->result(), sa) << "round " << round;
            ASSERT_EQ(rb->result(), sb) << "round " << round;
            ASSERT_EQ(rc->result(), sc) << "round " << round;
        }
    });
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
