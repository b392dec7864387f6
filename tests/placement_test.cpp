// Every CPU backend reads its own copy of the input (cpu/placed_input.hpp), each part copied, and so
// first touched and placed on its NUMA node, by the thread that reads that part.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "bench/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "bench/exact_sum.hpp"
#include "bench/host_memory.hpp"
#include "cpu/parallel/placed_input.hpp"
#include "cpu/parallel/static_chunks.hpp"
#include "cpu/parallel/thread_pool.hpp"

namespace shootout {
namespace {

struct Copied {
    std::span<const float> chunk;
    int cpu;
};

// Prepares backend on input, recording each part's copy through the placement hook.
class ObservedPrepare {
public:
    ObservedPrepare(const Backend& backend, std::span<const float> input, int threads) {
        placement_observer() = [this](int part, std::span<const float> chunk) {
            const std::lock_guard lock(mutex_);
            copies.emplace_back(part, Copied{chunk, sched_getcpu()});
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

// The CPUs this process may run on, in order: the pool pins its part k to the k-th.
std::vector<int> allowed_cpus() {
    cpu_set_t set;
    std::vector<int> cpus;
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    return cpus;
}

class EveryCpuBackendPlacement : public ::testing::TestWithParam<const Backend*> {};

TEST_P(EveryCpuBackendPlacement, EachPartIsCopiedOnceIntoTheMemoryARunReads) {
    const Backend& backend = *GetParam();
    const int threads = backend.parallel ? 3 : 1;
    const auto data = small_integers(100003, 8, 2);
    const ObservedPrepare prepared(backend, data, threads);
    const std::span<const float> copy = prepared.reduction->host_input();
    ASSERT_EQ(copy.size(), data.size());
    EXPECT_NE(copy.data(), data.data()) << "a backend reads its own copy";
    EXPECT_TRUE(std::equal(copy.begin(), copy.end(), data.begin()));
    std::map<int, std::span<const float>> chunks;
    for (const auto& [part, copied] : prepared.copies) EXPECT_TRUE(chunks.emplace(part, copied.chunk).second) << "part " << part << " copied twice";
    ASSERT_EQ(chunks.size(), static_cast<std::size_t>(threads));
    for (int part = 0; part < threads; ++part) {
        const auto expected = static_chunk(copy, part, threads);
        EXPECT_EQ(chunks[part].data(), expected.data()) << "part " << part;
        EXPECT_EQ(chunks[part].size(), expected.size()) << "part " << part;
    }
    prepared.reduction->run();
    EXPECT_EQ(prepared.reduction->result(), exact_sum(data).round());
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryCpuBackendPlacement, ::testing::ValuesIn(available_cpu_backends()), backend_test_name);

// The pool pins part k to the k-th allowed CPU for its runs; the copy of chunk k is made there too.
TEST(Placement, PoolCopiesEachChunkOnTheCpuThatReadsIt) {
    const std::vector<int> cpus = allowed_cpus();
    if (cpus.size() < 2) GTEST_SKIP() << "one CPU: every part runs on it";
    const int threads = static_cast<int>(std::min<std::size_t>(cpus.size(), 4));
    std::vector<int> read_on(threads, -1);
    {
        ThreadPool pool(threads);
        auto where = [&](int part) { read_on[part] = sched_getcpu(); };
        pool.run(where);
    }
    for (int part = 0; part < threads; ++part) EXPECT_EQ(read_on[part], cpus[part]) << "part " << part << " read";
    const auto data = small_integers(1 << 20, 8, 3);
    for (const char* name : {"cpu/pool/simd", "cpu/baseline/read"}) {
        const ObservedPrepare prepared(*find_backend(name), data, threads);
        ASSERT_EQ(prepared.copies.size(), static_cast<std::size_t>(threads)) << name;
        for (const auto& [part, copied] : prepared.copies) EXPECT_EQ(copied.cpu, cpus[part]) << name << " part " << part << " copied";
    }
}

TEST(Placement, CopiesAreOnHugePagesWhereTheKernelOffersThem) {
    if (!transparent_huge_pages_enabled())
        GTEST_SKIP() << "transparent huge pages are off here (/sys/kernel/mm/transparent_hugepage/enabled is 'never')";
    const auto data = small_integers(1 << 21, 8, 4);
    for (const Backend* backend : available_cpu_backends()) {
        const auto reduction = backend->prepare(data, {.threads = 2});
        reduction->run();
        EXPECT_EQ(page_backing(reduction->host_input().data()), PageBacking::huge) << backend->name;
    }
}

TEST(Placement, ACopyKeepsItsInputsOffsetInAPage) {
    const auto data = small_integers(5000, 8, 5);
    const auto page_offset = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % kSmallPage; };
    for (std::size_t shift : {0u, 1u, 3u}) {
        const std::span<const float> input(data.data() + shift, 4000);
        const auto reduction = find_backend("cpu/pool/simd")->prepare(input, {.threads = 2});
        EXPECT_EQ(page_offset(reduction->host_input().data()), page_offset(input.data())) << "shift " << shift;
    }
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
