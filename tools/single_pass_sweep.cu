// Times SinglePass (cuda/agents/single_pass.cuh) under several policies against cub::DeviceReduce::Sum, and
// checks them. Not part of the harness: no registered backends, no GoogleTest.
//
//   single_pass_sweep [--acc=f32,f64,kahan] [--dtype=f32,f64,f16,bf16] [--sizes=10..30] [--calls=K]
//                     [--reps=5] [--isolated=21]
//   single_pass_sweep --check        exit 0: all passed, 1: a check failed, 77: no CUDA device
//
// Timing: the input in as many 256-byte-aligned copies as span 4x the L2, taken in turn (as the
// harness does), so that no call reads a warm L2. "batched": K calls back to back between two events,
// per call, median of --reps batches. "isolated": one call between two events, synchronised, median
// of --isolated calls. Every row's result is checked against the exact sum. --dtype: the element
// types of the input (GB/s counts its bytes); accumulators f32 (float), f64 (double) and kahan
// (Kahan in the backends' type: double for f64 input, float otherwise); f32 is left out for f64
// input, which it would round. The CUB reference sums each type as cuda/cub does.
//
// --check: for every policy and accumulator, sizes from 1 element to 2^24 at two alignments: calls
// synchronised one by one (exact, same bits each call, ticket back at 0), calls back to back with no
// synchronisation on x and -x in turn (what lets a programmatic launch overlap the call before it:
// a slot overwritten too early mixes the two), calls alternating between objects, sizes and the
// backends' policy, and two objects on two streams at once.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/element_type.hpp"
#include "cuda/agents/single_pass.cuh"
#include "cuda/runtime/cub_reduce.cuh"
#include "cuda/runtime/device.hpp"
#include "cuda/runtime/element_dispatch.cuh"

using namespace shootout::cuda;

namespace {

// The policies a sweep times; the backends' own (SinglePassTuning<Acc>::Policy) is always timed too
// and marked '*'.
using SweepPolicies = std::tuple<
    SinglePassPolicy<256, 4, 4>,
    SinglePassPolicy<256, 4, 8>,  // registers capped at 32: 8 blocks, full occupancy
    SinglePassPolicy<128, 4, 8>,
    SinglePassPolicy<512, 4, 2>,
    SinglePassPolicy<1024, 4, 1>,
    SinglePassPolicy<256, 2, 8>,
    SinglePassPolicy<256, 8, 2>,
    SinglePassPolicy<256, 4, 4, 2>,   // two passes per thread before the grid grows
    SinglePassPolicy<256, 4, 4, 1, TicketFence::acq_rel>,
    // The default with one option each, and the two that may combine: programmatic dependent launch
    // (the next call's launch, loads and block sums overlap this call's tail), contiguous runs of
    // tiles per block, the L2 256-byte prefetch hint.
    SinglePassPolicy<256, 4, 4, 1, TicketFence::sc, Launch::pdl>,
    SinglePassPolicy<256, 4, 4, 1, TicketFence::sc, Launch::plain, Partition::even_share>,
    SinglePassPolicy<256, 4, 4, 1, TicketFence::sc, Launch::pdl, Partition::even_share>,
    SinglePassPolicy<256, 4, 4, 1, TicketFence::sc, Launch::plain, Partition::grid_stride, LoadHint::l2_256b>,
    SinglePassPolicy<256, 4, 4, 1, TicketFence::sc, Launch::pdl, Partition::grid_stride, LoadHint::l2_256b>>;

template <class P>
std::string policy_name() {
    std::string s = std::to_string(P::kBlockThreads) + "x" + std::to_string(P::kLoadsInFlight) + "/min" + std::to_string(P::kMinBlocksPerSm);
    if (P::kSmallGridPasses != 1) s += "/p" + std::to_string(P::kSmallGridPasses);
    if (P::kFence == TicketFence::acq_rel) s += "/acqrel";
    if (P::kLaunch == Launch::pdl) s += "/pdl";
    if (P::kPartition == Partition::even_share) s += "/even";
    if (P::kLoad == LoadHint::l2_256b) s += "/L2:256";
    return s;
}

// The policy's name, flagged where a pdl policy launches plainly (a kernel built for before sm_90).
template <class Acc, class In, class P>
std::string pass_name(const SinglePass<Acc, In, P>& pass) {
    return policy_name<P>() + (P::kLaunch == Launch::pdl && !pass.programmatic() ? "(off)" : "");
}

template <class Acc>
const char* acc_name() {
    if constexpr (std::is_same_v<Acc, PlainSum<float>>) return "f32";
    else if constexpr (std::is_same_v<Acc, PlainSum<double>>) return "f64";
    else return "kahan";
}

struct Options {
    std::vector<std::string> accs = {"f32"};
    std::vector<shootout::ElementType> dtypes = {shootout::ElementType::f32};
    int min_log = 10, max_log = 30;
    int calls = 0;  // 0: by size
    int reps = 5, isolated = 21;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The timing input: x[i] = 1 where i % 1024 == 0, else 0, in every copy. Every partial sum of any
// order is an integer below 2^24, so every accumulator must return exactly ceil(n / 1024).
template <class In>
__global__ void fill_sparse_ones(In* x, std::size_t total, std::size_t stride, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total; i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t j = i % stride;
        x[i] = static_cast<In>(j < n && j % 1024 == 0 ? 1.0f : 0.0f);
    }
}

// Copies of n elements of In, each 256-byte aligned, spanning 4x the L2.
template <class In>
class Copies {
public:
    explicit Copies(std::size_t n) : n_(n), stride_((n * sizeof(In) + 255) / 256 * 256 / sizeof(In)) {
        const std::size_t span = 4 * device_properties().l2_bytes, copy = stride_ * sizeof(In);
        count_ = copy < span ? (span + copy - 1) / copy : 1;
        data_ = DeviceBuffer<In>(stride_ * count_);
        fill_sparse_ones<<<1024, 256>>>(data_.get(), stride_ * count_, stride_, n_);
        SHOOTOUT_CUDA_CHECK_LAUNCH(fill_sparse_ones);
        SHOOTOUT_CUDA_CHECK(cudaDeviceSynchronize());
    }
    const In* next() {
        const In* p = data_.get() + next_ * stride_;
        next_ = (next_ + 1) % count_;
        return p;
    }
    double exact() const { return static_cast<double>((n_ + 1023) / 1024); }

private:
    std::size_t n_, stride_, count_ = 1, next_ = 0;
    DeviceBuffer<In> data_;
};

struct Times {
    double batched_us = 0, isolated_us = 0;
};

template <class Enqueue, class In>
Times time_calls(Enqueue&& enqueue, Copies<In>& copies, int calls, const Options& o, cudaStream_t stream) {
    cudaEvent_t start, stop;
    SHOOTOUT_CUDA_CHECK(cudaEventCreate(&start));
    SHOOTOUT_CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i) enqueue(copies.next(), stream);  // warm-up
    SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> batches, singles;
    for (int r = 0; r < o.reps; ++r) {
        SHOOTOUT_CUDA_CHECK(cudaEventRecord(start, stream));
        for (int c = 0; c < calls; ++c) enqueue(copies.next(), stream);
        SHOOTOUT_CUDA_CHECK(cudaEventRecord(stop, stream));
        SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        SHOOTOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        batches.push_back(ms * 1e3 / calls);
    }
    for (int r = 0; r < o.isolated; ++r) {
        const In* in = copies.next();
        SHOOTOUT_CUDA_CHECK(cudaEventRecord(start, stream));
        enqueue(in, stream);
        SHOOTOUT_CUDA_CHECK(cudaEventRecord(stop, stream));
        SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        SHOOTOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        singles.push_back(ms * 1e3);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return {median(batches), median(singles)};
}

template <class Result>
Result read_back(const Result* device) {
    Result r{};
    SHOOTOUT_CUDA_CHECK(cudaMemcpy(&r, device, sizeof r, cudaMemcpyDeviceToHost));
    return r;
}

template <class In>
void print_row(const char* acc, const std::string& policy, std::size_t n, unsigned grid, int regs, int per_sm, Times t,
               Times cub, bool correct) {
    const double gbps = static_cast<double>(n) * sizeof(In) / (t.batched_us * 1e3);
    const std::string_view dtype = to_string(device_element_type<In>());
    std::printf("%-6s %-5.*s %-24s %12zu %6u %5d %4d %10.2f %8.1f %10.2f %7.2f %7.2f %s\n", acc, static_cast<int>(dtype.size()),
                dtype.data(), policy.c_str(), n, grid, regs, per_sm, t.batched_us, gbps, t.isolated_us, cub.batched_us / t.batched_us,
                cub.isolated_us / t.isolated_us, correct ? "ok" : "WRONG");
}

template <class Acc, class P, class In>
bool time_policy(std::size_t n, Copies<In>& copies, int calls, const Options& o, cudaStream_t stream, Times cub, bool tuned) {
    SinglePass<Acc, In, P> pass(n);
    DeviceBuffer<typename Acc::Result> out(1);
    const Times t = time_calls([&](const In* in, cudaStream_t s) { pass.enqueue(in, out.get(), s); }, copies, calls, o, stream);
    SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const bool correct = static_cast<double>(read_back(out.get())) == copies.exact() && read_back(pass.ticket()) == 0;
    cudaFuncAttributes attributes{};
    SHOOTOUT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, single_pass_sum<Acc, P, In>));
    int per_sm = 0;
    SHOOTOUT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, single_pass_sum<Acc, P, In>, P::kBlockThreads, 0));
    print_row<In>(acc_name<Acc>(), (tuned ? "*" : " ") + pass_name(pass), n, pass.grid(), attributes.numRegs, per_sm, t, cub, correct);
    return correct;
}

// cub::DeviceReduce as cuda/cub calls it: float and double in their own type, the 16-bit types in float.
template <class In>
Times time_cub(std::size_t n, Copies<In>& copies, int calls, const Options& o, cudaStream_t stream, bool& correct) {
    using Acc = DefaultAccumulation<In>;
    DeviceBuffer<Acc> out(1);
    std::size_t bytes = 0;
    const auto items = static_cast<std::int64_t>(n);
    SHOOTOUT_CUDA_CHECK((cub_sum<In, Acc>(nullptr, bytes, nullptr, out.get(), items, nullptr)));
    DeviceBuffer<unsigned char> temp(bytes);
    const Times t = time_calls(
        [&](const In* in, cudaStream_t s) { SHOOTOUT_CUDA_CHECK((cub_sum<In, Acc>(temp.get(), bytes, in, out.get(), items, s))); },
        copies, calls, o, stream);
    SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
    correct = static_cast<double>(read_back(out.get())) == copies.exact();
    return t;
}

template <class Acc, class In>
bool sweep_size(std::size_t n, Copies<In>& copies, int calls, const Options& o, cudaStream_t stream, Times cub) {
    using Tuned = typename SinglePassTuning<Acc, In>::Policy;
    bool ok = time_policy<Acc, Tuned>(n, copies, calls, o, stream, cub, true);
    std::apply([&]<class... P>(P...) { ((ok &= std::is_same_v<P, Tuned> || time_policy<Acc, P>(n, copies, calls, o, stream, cub, false)), ...); },
               SweepPolicies{});
    return ok;
}

// Every accumulator asked for over the copies of one size and type, against CUB.
template <class In>
bool sweep_type(std::size_t n, int calls, const Options& o, cudaStream_t stream) {
    Copies<In> copies(n);
    bool cub_ok = true;
    const Times cub = time_cub(n, copies, calls, o, stream, cub_ok);
    print_row<In>("cub", " cub", n, 0, 0, 0, cub, cub, cub_ok);
    bool ok = true;
    for (const std::string& acc : o.accs) {
        if (acc == "f32") {
            if constexpr (!std::is_same_v<In, double>) ok &= sweep_size<PlainSum<float>>(n, copies, calls, o, stream, cub);
        }
        if (acc == "f64") ok &= sweep_size<PlainSum<double>>(n, copies, calls, o, stream, cub);
        if (acc == "kahan") ok &= sweep_size<KahanSum<DefaultAccumulation<In>>>(n, copies, calls, o, stream, cub);
    }
    return ok;
}

int sweep(const Options& o) {
    const DeviceProperties& d = device_properties();
    std::printf("# %s: %d SMs, L2 %zu MiB, %.0f GB/s theoretical\n", d.name.c_str(), d.sm_count, d.l2_bytes >> 20, d.peak_gbps);
    std::printf("# batched: median of %d batches of K back-to-back calls; isolated: median of %d synchronised calls;\n", o.reps, o.isolated);
    std::printf("# inputs rotate over copies spanning 4x L2. policy: threads x loads in flight / min blocks per SM [/ passes]\n");
    std::printf("# [/acqrel: fence] [/pdl: programmatic dependent launch] [/even: contiguous tiles per block] [/L2:256: prefetch hint]; * = the backends'\n");
    std::printf("# %-4s %-5s %-24s %12s %6s %5s %4s %10s %8s %10s %7s %7s\n", "acc", "dtype", "policy", "n", "grid", "regs", "b/SM",
                "batch_us", "GB/s", "iso_us", "xcub_b", "xcub_i");
    cudaStream_t stream;
    SHOOTOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    bool ok = true;
    for (int log = o.min_log; log <= o.max_log; ++log) {
        const std::size_t n = std::size_t{1} << log;
        const int calls = o.calls > 0 ? o.calls : static_cast<int>(std::clamp<std::size_t>((std::size_t{1} << 30) / n, 10, 1000));
        for (const shootout::ElementType dtype : o.dtypes)
            ok &= with_device_type(dtype, [&]<class In>(std::type_identity<In>) { return sweep_type<In>(n, calls, o, stream); });
        std::fflush(stdout);
    }
    cudaStreamDestroy(stream);
    return ok ? 0 : 1;
}

// ---- --check: what a one-launch ticket kernel can get wrong, for every policy and accumulator.

int failures = 0, passes = 0;

void expect(bool ok, const std::string& what) {
    ++(ok ? passes : failures);
    if (!ok) std::printf("FAILED: %s\n", what.c_str());
}

// Values in {-1, 0, 1}: below 2^24 elements every order's partial sums are exact integers.
std::vector<float> small_integers(std::size_t n) {
    std::vector<float> v(n);
    std::uint64_t x = 88172645463325252ull;
    for (float& f : v) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        f = static_cast<float>(static_cast<int>(x % 3) - 1);
    }
    return v;
}

// Each call with *out poisoned (NaN) first: a call that writes nothing, or a ticket left unreset (the
// next call would find no last block), shows as NaN or as a counter not back at 0.
template <class Acc, class P>
void check_calls(const SinglePass<Acc, float, P>& pass, const float* in, double exact, int calls, cudaStream_t stream, const std::string& what) {
    using Result = typename Acc::Result;
    DeviceBuffer<Result> out(1);
    Result first{};
    for (int c = 0; c < calls; ++c) {
        SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(out.get(), 0xff, sizeof(Result), stream));
        pass.enqueue(in, out.get(), stream);
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
        const Result r = read_back(out.get());
        if (c == 0) first = r;
        const bool ok = static_cast<double>(r) == exact && std::memcmp(&r, &first, sizeof r) == 0 && read_back(pass.ticket()) == 0;
        if (!ok) {
            expect(false, what + " call " + std::to_string(c) + ": got " + std::to_string(static_cast<double>(r)) + ", exact " +
                              std::to_string(exact) + ", ticket " + std::to_string(read_back(pass.ticket())));
            return;
        }
    }
    expect(true, what);
}

// An input for back-to-back checks: the data, or its negation (a second buffer), at an offset. A
// call whose slot another call overwrote before it was combined (what a programmatic launch that
// waited too late would do) mixes block sums of x and -x and misses both exact values.
struct Input {
    const float* data;
    double exact;
};

// Calls back to back with no synchronisation between them, the only way a programmatic launch
// overlaps the call before it: each call's input in turn from `inputs`, each into its own result,
// then as many into one shared result (the last call's must stand). The results are read after one
// synchronisation at the end.
template <class Acc, class P>
void check_back_to_back(const SinglePass<Acc, float, P>& pass, const std::vector<Input>& inputs, int calls, cudaStream_t stream,
                        const std::string& what) {
    using Result = typename Acc::Result;
    DeviceBuffer<Result> outs(calls + 1);
    SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(outs.get(), 0xff, (calls + 1) * sizeof(Result), stream));
    for (int c = 0; c < calls; ++c) pass.enqueue(inputs[c % inputs.size()].data, outs.get() + c, stream);
    for (int c = 0; c < calls; ++c) pass.enqueue(inputs[c % inputs.size()].data, outs.get() + calls, stream);
    SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<Result> results(calls + 1);
    SHOOTOUT_CUDA_CHECK(cudaMemcpy(results.data(), outs.get(), results.size() * sizeof(Result), cudaMemcpyDeviceToHost));
    for (int c = 0; c <= calls; ++c) {
        const double expected = inputs[(c < calls ? c : calls - 1) % inputs.size()].exact;
        if (static_cast<double>(results[c]) != expected) {
            expect(false, what + " back-to-back call " + std::to_string(c) + ": got " + std::to_string(static_cast<double>(results[c])) +
                              ", exact " + std::to_string(expected));
            return;
        }
    }
    expect(read_back(pass.ticket()) == 0, what + " back-to-back: ticket back at 0");
}

template <class Acc, class P>
void check_policy(const float* device_data, const float* negated_data, const std::vector<float>& host_data, cudaStream_t s1,
                  cudaStream_t s2) {
    std::string name = std::string(acc_name<Acc>()) + " " + policy_name<P>();
    if (P::kLaunch == Launch::pdl) name += SinglePass<Acc, float, P>(1).programmatic() ? " (programmatic)" : " (pdl off: kernel built before sm_90)";
    const auto exact = [&](std::size_t offset, std::size_t n) {
        double sum = 0;
        for (std::size_t i = offset; i < offset + n; ++i) sum += host_data[i];
        return sum;
    };
    const std::size_t big = (std::size_t{1} << 24) - 3;
    for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{4096}, std::size_t{4097}, std::size_t{1000003},
                          (std::size_t{1} << 20) + 7, big})
        for (std::size_t offset : {0, 3}) {
            const SinglePass<Acc, float, P> pass(n);
            const std::string what = name + " n=" + std::to_string(n) + " offset=" + std::to_string(offset) + " grid=" + std::to_string(pass.grid());
            check_calls(pass, device_data + offset, exact(offset, n), n == big ? 5 : 50, s1, what);
            const double e0 = exact(offset, n), e3 = exact(offset ^ 3, n);
            check_back_to_back(pass,
                               {{device_data + offset, e0}, {negated_data + offset, -e0}, {device_data + (offset ^ 3), e3},
                                {negated_data + (offset ^ 3), -e3}},
                               n == big ? 8 : 64, s1, what);
        }
    // Two prepared reductions of different sizes, alternating on one stream, then running at once on two.
    const SinglePass<Acc, float, P> a(1000003), b(4097 * 64 + 1);
    for (int round = 0; round < 5; ++round) {
        check_calls(a, device_data + 3, exact(3, 1000003), 2, s1, name + " interleaved a");
        check_calls(b, device_data, exact(0, 4097 * 64 + 1), 2, s1, name + " interleaved b");
    }
    using Result = typename Acc::Result;
    // Back to back on one stream, no synchronisation: each call after one of another object and size,
    // every third after the backends' own policy (plain launch unless that is pdl too), x and -x in
    // turn. A programmatic call must neither start on the slots nor take a ticket before the call
    // before it, whatever that was, has completed.
    {
        const SinglePass<Acc, float, typename SinglePassTuning<Acc>::Policy> c((std::size_t{1} << 20) + 7);
        const std::size_t na = 1000003, nb = 4097 * 64 + 1, nc = (std::size_t{1} << 20) + 7;
        constexpr int kRounds = 16;
        DeviceBuffer<Result> outs(3 * kRounds);
        SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(outs.get(), 0xff, 3 * kRounds * sizeof(Result), s1));
        for (int r = 0; r < kRounds; ++r) {
            const float* x = r % 2 == 0 ? device_data : negated_data;
            a.enqueue(x + 3, outs.get() + 3 * r, s1);
            b.enqueue(x, outs.get() + 3 * r + 1, s1);
            c.enqueue(x + 3, outs.get() + 3 * r + 2, s1);
        }
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(s1));
        std::vector<Result> results(3 * kRounds);
        SHOOTOUT_CUDA_CHECK(cudaMemcpy(results.data(), outs.get(), results.size() * sizeof(Result), cudaMemcpyDeviceToHost));
        bool ok = read_back(a.ticket()) == 0 && read_back(b.ticket()) == 0 && read_back(c.ticket()) == 0;
        for (int r = 0; r < kRounds; ++r) {
            const double sign = r % 2 == 0 ? 1.0 : -1.0;
            ok &= static_cast<double>(results[3 * r]) == sign * exact(3, na) && static_cast<double>(results[3 * r + 1]) == sign * exact(0, nb) &&
                  static_cast<double>(results[3 * r + 2]) == sign * exact(3, nc);
        }
        expect(ok, name + " back-to-back across objects and sizes");
    }
    DeviceBuffer<Result> out_a(1), out_b(1);
    for (int c = 0; c < 20; ++c) {
        a.enqueue(device_data + 3, out_a.get(), s1);
        b.enqueue(device_data, out_b.get(), s2);
    }
    SHOOTOUT_CUDA_CHECK(cudaDeviceSynchronize());
    expect(static_cast<double>(read_back(out_a.get())) == exact(3, 1000003) && static_cast<double>(read_back(out_b.get())) == exact(0, 4097 * 64 + 1) &&
               read_back(a.ticket()) == 0 && read_back(b.ticket()) == 0,
           name + " concurrent on two streams");
}

template <class Acc>
void check_accumulator(const float* device_data, const float* negated_data, const std::vector<float>& host_data, cudaStream_t s1,
                       cudaStream_t s2) {
    check_policy<Acc, typename SinglePassTuning<Acc>::Policy>(device_data, negated_data, host_data, s1, s2);
    std::apply([&]<class... P>(P...) { (check_policy<Acc, P>(device_data, negated_data, host_data, s1, s2), ...); }, SweepPolicies{});
}

int check() {
    const std::vector<float> host = small_integers((std::size_t{1} << 24) + 8);
    DeviceBuffer<float> data(host.size()), negated(host.size());
    SHOOTOUT_CUDA_CHECK(cudaMemcpy(data.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    std::vector<float> minus(host.size());
    std::transform(host.begin(), host.end(), minus.begin(), [](float f) { return -f; });
    SHOOTOUT_CUDA_CHECK(cudaMemcpy(negated.get(), minus.data(), minus.size() * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s1, s2;
    SHOOTOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    SHOOTOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    check_accumulator<PlainSum<float>>(data.get(), negated.get(), host, s1, s2);
    check_accumulator<PlainSum<double>>(data.get(), negated.get(), host, s1, s2);
    check_accumulator<KahanSum<float>>(data.get(), negated.get(), host, s1, s2);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    std::printf("single_pass_sweep --check on %s: %d passed, %d failed\n", device_properties().name.c_str(), passes, failures);
    return failures == 0 ? 0 : 1;
}

[[noreturn]] void usage(const char* bad) {
    std::fprintf(stderr, "single_pass_sweep: bad argument '%s'\nusage: single_pass_sweep [--check] [--acc=f32,f64,kahan] "
                         "[--dtype=f32,f64,f16,bf16] [--sizes=LO..HI (log2)] [--calls=K] [--reps=R] [--isolated=N]\n", bad);
    std::exit(2);
}

int positive(const char* arg, const char* value) {
    char* end = nullptr;
    const long v = std::strtol(value, &end, 10);
    if (*end != '\0' || v < 0 || v > 1000000) usage(arg);
    return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    bool checking = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--check") checking = true;
        else if (a.starts_with("--acc=")) {
            o.accs.clear();
            for (std::size_t pos = 6; pos <= a.size();) {
                const std::size_t comma = std::min(a.find(',', pos), a.size());
                const std::string acc = a.substr(pos, comma - pos);
                if (acc != "f32" && acc != "f64" && acc != "kahan") usage(argv[i]);
                o.accs.push_back(acc);
                pos = comma + 1;
            }
        } else if (a.starts_with("--dtype=")) {
            o.dtypes.clear();
            for (std::size_t pos = 8; pos <= a.size();) {
                const std::size_t comma = std::min(a.find(',', pos), a.size());
                const auto dtype = shootout::element_type_named(a.substr(pos, comma - pos));
                if (!dtype) usage(argv[i]);
                o.dtypes.push_back(*dtype);
                pos = comma + 1;
            }
        } else if (a.starts_with("--sizes=")) {
            const std::size_t dots = a.find("..");
            if (dots == std::string::npos) usage(argv[i]);
            o.min_log = positive(argv[i], a.substr(8, dots - 8).c_str());
            o.max_log = positive(argv[i], a.substr(dots + 2).c_str());
            if (o.min_log > o.max_log || o.max_log > 34) usage(argv[i]);
        } else if (a.starts_with("--calls=")) o.calls = positive(argv[i], argv[i] + 8);
        else if (a.starts_with("--reps=")) o.reps = std::max(1, positive(argv[i], argv[i] + 7));
        else if (a.starts_with("--isolated=")) o.isolated = std::max(1, positive(argv[i], argv[i] + 11));
        else usage(argv[i]);
    }
    if (auto reason = why_no_device()) {
        std::printf("single_pass_sweep: skipped: %s\n", reason->c_str());
        return 77;
    }
    try {
        return checking ? check() : sweep(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "single_pass_sweep: %s\n", e.what());
        return 1;
    }
}
