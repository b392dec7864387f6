// Every CPU backend reads its own copy of the input (cpu/parallel/placed_input.hpp), of every element
// type it takes, each part copied, and so first touched and placed on its NUMA node, by the thread
// that reads that part.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include "api/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "exact/exact_sum.hpp"
#include "platform/memory.hpp"
#include "cpu/parallel/placed_input.hpp"
#include "cpu/parallel/static_chunks.hpp"
#include "cpu/parallel/thread_pool.hpp"
#include "platform/affinity.hpp"

namespace shootout {
namespace {

struct Copied {
    Elements chunk;
    int cpu;
};

// Prepares backend on input, recording each part's copy through the placement hook.
class ObservedPrepare {
public:
    ObservedPrepare(const Backend& backend, Elements input, int threads) {
        placement_observer() = [this](int part, Elements chunk) {
            const std::lock_guard lock(mutex_);
            copies.emplace_back(part, Copied{chunk, platform::current_cpu()});
        };
        try {
            reduction = backend.prepare(input, {.threads = threads});
        } catch (...) {
            placement_observer() = nullptr;
            throw;
        }
        placement_observer() = nullptr;
    }

    std::vector<std::pair<int, Copied>> copies;
    std::unique_ptr<Reduction> reduction;

private:
    std::mutex mutex_;
};

std::vector<const Backend*> available_cpu_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == Device::cpu && !b.why_unavailable()) list.push_back(&b);
    return list;
}

class EveryCpuBackendPlacement : public ::testing::TestWithParam<const Backend*> {};

TEST_P(EveryCpuBackendPlacement, EachPartIsCopiedOnceIntoTheMemoryARunReads) {
    const Backend& backend = *GetParam();
    const int threads = backend.parallel ? 3 : 1;
    for_each_element_type(backend, [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(100003, kExactMagnitude<T>, 2);
        const ObservedPrepare prepared(backend, std::span<const T>(data), threads);
        const Elements host_input = prepared.reduction->host_input();
        ASSERT_EQ(host_input.type(), element_type_of<T>);
        const std::span<const T> copy = host_input.as<T>();
        ASSERT_EQ(copy.size(), data.size());
        EXPECT_NE(copy.data(), data.data()) << "a backend reads its own copy";
        EXPECT_TRUE(std::equal(copy.begin(), copy.end(), data.begin()));
        std::map<int, Elements> chunks;
        for (const auto& [part, copied] : prepared.copies) EXPECT_TRUE(chunks.emplace(part, copied.chunk).second) << "part " << part << " copied twice";
        ASSERT_EQ(chunks.size(), static_cast<std::size_t>(threads));
        for (int part = 0; part < threads; ++part) {
            const auto expected = static_chunk(copy, part, threads);
            EXPECT_EQ(chunks[part].type(), element_type_of<T>) << "part " << part;
            EXPECT_EQ(chunks[part].data(), expected.data()) << "part " << part;
            EXPECT_EQ(chunks[part].size(), expected.size()) << "part " << part;
        }
        prepared.reduction->run();
        // A 16-bit running total cannot hold these partial sums: its sums are checked elsewhere.
        if (static_cast<double>(data.size()) * kExactMagnitude<T> <= exact_up_to(backend.traits_for(element_type_of<T>).accumulator)) {
            EXPECT_EQ(prepared.reduction->result(), exact_sum_of(data).round());
        }
    });
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryCpuBackendPlacement, ::testing::ValuesIn(available_cpu_backends()), backend_test_name);

// The pool pins part k to the k-th allowed CPU for its runs; the copy of chunk k is made there too.
TEST(Placement, PoolCopiesEachChunkOnTheCpuThatReadsIt) {
    const std::vector<int> cpus = platform::current_thread_cpus();
    if (cpus.size() < 2) GTEST_SKIP() << "one CPU: every part runs on it";
    const int threads = static_cast<int>(std::min<std::size_t>(cpus.size(), 4));
    std::vector<int> read_on(threads, -1);
    {
        ThreadPool pool(threads);
        auto where = [&](int part) { read_on[part] = platform::current_cpu(); };
        pool.run(where);
    }
    for (int part = 0; part < threads; ++part) EXPECT_EQ(read_on[part], cpus[part]) << "part " << part << " read";
    const auto data = small_integers(1 << 20, 8, 3);
    for (const char* name : {"cpu/pool/simd", "cpu/baseline/read"}) {
        const ObservedPrepare prepared(*find_backend(name), std::span<const float>(data), threads);
        ASSERT_EQ(prepared.copies.size(), static_cast<std::size_t>(threads)) << name;
        for (const auto& [part, copied] : prepared.copies) EXPECT_EQ(copied.cpu, cpus[part]) << name << " part " << part << " copied";
    }
}

TEST(Placement, CopiesAreOnHugePagesWhereTheKernelOffersThem) {
    if (!platform::huge_pages_available())
        GTEST_SKIP() << "no huge pages here (Linux: /sys/kernel/mm/transparent_hugepage/enabled is 'never'; Windows: no Lock pages in memory privilege)";
    for (const Backend* backend : available_cpu_backends())
        for_each_element_type(*backend, [&]<class T>(std::type_identity<T>) {
            const auto data = small_integers<T>(1 << 21, 8, 4);
            const auto reduction = backend->prepare(std::span<const T>(data), {.threads = 2});
            reduction->run();
            EXPECT_EQ(platform::page_backing(reduction->host_input().data()), platform::PageBacking::huge) << backend->name;
        });
}

TEST(Placement, ACopyKeepsItsInputsOffsetInAPage) {
    const auto page_offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % platform::kSmallPage; };
    const Backend& pool = *find_backend("cpu/pool/simd");
    for_each_element_type(pool, [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(5000, 8, 5);
        for (std::size_t shift : {0u, 1u, 3u}) {
            const std::span<const T> input(data.data() + shift, 4000);
            const auto reduction = pool.prepare(input, {.threads = 2});
            EXPECT_EQ(page_offset(reduction->host_input().data()), page_offset(input.data())) << "shift " << shift;
        }
    });
}

// run_shared: every unit of a shared supply is done once, and no part starts after the call
// returned (its task may be gone by then), over many back-to-back calls.
TEST(ThreadPoolShared, EveryUnitOnceAndNoLateStarts) {
    // More threads than CPUs, unpinned: the OS preempts workers anywhere, between seeing a call and
    // counting themselves in it too.
    const int threads = static_cast<int>(std::thread::hardware_concurrency()) * 4;
    ThreadPool pool(threads);
    // Calls of a few units return within a worker's wake-up, so workers often arrive after a call,
    // or several, have returned: a worker that then starts a returned call's task fails the test.
    // Every call's task and state live on until the end, so such a start is counted, not a crash.
    constexpr int kUnits = 4, kCalls = 100000;
    struct Call {
        std::atomic<int> next{0};
        std::array<std::atomic<int>, kUnits> done{};
        std::atomic<bool> returned{false};
    };
    std::vector<std::unique_ptr<Call>> calls;
    std::atomic<int> late{0};
    std::vector<std::function<void(int)>> tasks;
    calls.reserve(kCalls);
    tasks.reserve(kCalls);
    for (int c = 0; c < kCalls; ++c) {
        Call& call = *calls.emplace_back(std::make_unique<Call>());
        std::function<void(int)>& task = tasks.emplace_back([&call, &late](int) {
            if (call.returned.load()) late.fetch_add(1);
            for (int unit; (unit = call.next.fetch_add(1)) < kUnits;) call.done[unit].fetch_add(1);
        });
        pool.run_shared(task);
        call.returned.store(true);
        for (int unit = 0; unit < kUnits; ++unit) ASSERT_EQ(call.done[unit].load(), 1) << "call " << c << " unit " << unit;
        // A gap between calls, in which a worker still in an earlier call finds the task of one returned.
        const auto gap = std::chrono::steady_clock::now() + std::chrono::microseconds(2);
        while (std::chrono::steady_clock::now() < gap) {
        }
    }
    EXPECT_EQ(late.load(), 0) << "parts started after their call had returned";
    int ran = 0;  // the pool still runs every part of an ordinary run afterwards
    auto count = [&](int) { __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED); };
    pool.run(count);
    EXPECT_EQ(ran, threads);
}

}  // namespace
}  // namespace shootout
