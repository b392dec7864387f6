#include "cuda/runtime/multi_gpu.cuh"

#include <algorithm>
#include <array>
#include <map>
#include <type_traits>
#include <vector>

#include "api/device_timing.hpp"
#include "cuda/runtime/cuda_api.hpp"
#include "cuda/runtime/device.hpp"

#ifdef SHOOTOUT_HAVE_NCCL
#include "cuda/runtime/cuda_check.hpp"
#include "api/shard.hpp"
#include "cuda/runtime/cuda_queue.cuh"
#endif

namespace shootout::cuda {
namespace {

#ifdef SHOOTOUT_HAVE_NCCL

// One communicator per GPU over devices 0 .. gpus-1, made once per GPU count and kept for the
// process: ncclCommInitAll takes a good part of a second, and a sweep prepares many cases at each
// count. Destroyed at exit, before the CUDA runtime's own teardown (which was registered earlier,
// at the first CUDA call).
const std::vector<ncclComm_t>& communicators(int gpus) {
    struct Communicators {
        std::vector<ncclComm_t> comms;
        ~Communicators() {
            for (ncclComm_t comm : comms) ncclCommDestroy(comm);
        }
    };
    static std::map<int, Communicators> made;
    Communicators& c = made[gpus];
    if (c.comms.empty()) {
        std::vector<int> devices(static_cast<std::size_t>(gpus));
        for (int g = 0; g < gpus; ++g) devices[static_cast<std::size_t>(g)] = g;
        std::vector<ncclComm_t> comms(devices.size());
        SHOOTOUT_NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, devices.data()));
        c.comms = std::move(comms);
    }
    return c.comms;
}

// The spec's ShardSum for a shard of n elements of T.
template <class T>
std::unique_ptr<ShardSum<T>> make_shard_sum(const MultiGpuSpec& spec, std::size_t n) {
    if constexpr (std::is_same_v<T, double>) return spec.make_f64(n);
    else return spec.make(n);
}

// One GPU's compute stream (its queue, with the timing events), combine stream, the events of its
// partial slots, shard copies (rotating as every device backend's: api/device_timing.hpp) and
// ShardSum, all made on that GPU.
template <class T>
struct GpuPart {
    GpuPart(int device, std::span<const T> shard, const MultiGpuSpec& spec)
        : device(device), copies(queue, shard, /*rotate=*/true, 1), sum(make_shard_sum<T>(spec, shard.size())) {}
    int device;
    CudaQueue queue;
    // The all-reduces' stream, first in line for SMs: every GPU's all-reduce waits until this GPU's
    // kernel runs, which should not wait for the next read's blocks to leave.
    Stream combine{Stream::Priority::highest()};
    struct Slot {
        Event reduced{cudaEventDisableTiming};   // the slot's partial is written
        Event combined{cudaEventDisableTiming};  // its all-reduce has ended: it may be written again
    };
    std::array<Slot, kCallsInFlight> slots;
    Slot& slot_at(int slot) { return slots[static_cast<std::size_t>(slot)]; }
    RotatingInput copies;
    std::unique_ptr<ShardSum<T>> sum;

    // Waits until both streams have finished their work.
    void finish() {
        queue.finish();
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(combine));
    }

    // The stream that all-reduces: the combine stream when calls follow one another; the compute
    // stream for a lone call (run()), which has nothing to overlap and so no hop between streams to pay.
    cudaStream_t combining(int calls) const { return calls > 1 ? static_cast<cudaStream_t>(combine) : queue.stream(); }

    // The next call's reduction into `slot` on the compute stream, once the slot's last all-reduce
    // has ended (an event never recorded counts as ended); the combining stream then waits for it.
    void reduce(int slot, cudaStream_t combining) {
        Slot& s = slot_at(slot);
        SHOOTOUT_CUDA_CHECK(cudaStreamWaitEvent(queue.stream(), s.combined));
        sum->enqueue(static_cast<const T*>(device_address(copies.memory(), copies.next())), slot, queue.stream());
        if (combining == queue.stream()) return;
        SHOOTOUT_CUDA_CHECK(cudaEventRecord(s.reduced, queue.stream()));
        SHOOTOUT_CUDA_CHECK(cudaStreamWaitEvent(combining, s.reduced));
    }

    // After the slot's all-reduce has been enqueued on the combining stream.
    void combined(int slot, cudaStream_t combining) { SHOOTOUT_CUDA_CHECK(cudaEventRecord(slot_at(slot).combined, combining)); }

    // The compute stream waits for the slot's all-reduce (with it, every earlier one), then records
    // the stop event.
    void stop_after(int slot) {
        SHOOTOUT_CUDA_CHECK(cudaStreamWaitEvent(queue.stream(), slot_at(slot).combined));
        queue.record_stop();
    }
};

// The timing rule (results/README.md, "nccl/* rows"): with both streams of every GPU idle, a start
// event is recorded on each GPU's compute stream, then every call's reductions and all-reduce are
// enqueued, then each compute stream waits for the last all-reduce and records a stop event; the
// time is the largest of the GPUs' start-to-stop times. A GPU's stop comes after its part of the
// last all-reduce, which cannot end before every GPU has joined it, so the largest time runs from
// that GPU's start to the last GPU's end; the starts are recorded back to back by the host
// (microseconds apart, before any work is enqueued), so it falls short of "first GPU's start to
// last GPU's end" by at most that spread. In a batch, call k's all-reduce (combine stream) overlaps
// call k+1's reduction (compute stream), as the overlap rule allows: each call has its own partial
// slot, all-reduced only once written and written again only once its all-reduce has ended. A lone
// call (run()) all-reduces on its compute stream.
template <class T>
class MultiGpuReduction final : public Reduction {
public:
    MultiGpuReduction(std::shared_ptr<const MultiGpuSpec> spec, std::span<const T> input, int gpus)
        : spec_(std::move(spec)), comms_(communicators(gpus)) {
        const DeviceScope restore(0);
        for (int g = 0; g < gpus; ++g) {
            select_device(g);
            const Shard shard = shard_of(input.size(), g, gpus);
            parts_.push_back(std::make_unique<GpuPart<T>>(g, input.subspan(shard.begin, shard.size()), *spec_));
        }
    }

    ~MultiGpuReduction() override {
        const DeviceScope restore(0);
        for (auto& part : parts_) {
            select_device(part->device);
            part.reset();
        }
    }

    std::optional<double> run() override { return timed(1); }
    double run_batch(int calls) override { return timed(calls); }

    // The last call's sum: its slot's, once that slot's all-reduce has ended.
    double result() override {
        GpuPart<T>& first = *parts_.front();
        const DeviceScope on(first.device);
        SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(first.slot_at(last_slot_).combined));
        return first.sum->result(last_slot_);
    }

private:
    double timed(int calls) {
        return naming_failures(spec_->name, [&] {
            const DeviceScope restore(0);
            for (auto& part : parts_) {
                select_device(part->device);
                part->finish();
            }
            for (auto& part : parts_) {
                select_device(part->device);
                part->queue.start_timer();
            }
            for (int call = 0; call < calls; ++call) {
                const int slot = call % kCallsInFlight;
                for (auto& part : parts_) {
                    select_device(part->device);
                    part->reduce(slot, part->combining(calls));
                }
                SHOOTOUT_NCCL_CHECK(ncclGroupStart());
                for (std::size_t g = 0; g < parts_.size(); ++g)
                    parts_[g]->sum->all_reduce(slot, comms_[g], parts_[g]->combining(calls));
                SHOOTOUT_NCCL_CHECK(ncclGroupEnd());
                for (auto& part : parts_) {
                    select_device(part->device);
                    part->combined(slot, part->combining(calls));
                }
                last_slot_ = slot;
            }
            for (auto& part : parts_) {
                select_device(part->device);
                part->stop_after(last_slot_);
            }
            double longest = 0;
            for (auto& part : parts_) {
                select_device(part->device);
                longest = std::max(longest, part->queue.elapsed_seconds());
            }
            return longest;
        });
    }

    std::shared_ptr<const MultiGpuSpec> spec_;
    const std::vector<ncclComm_t>& comms_;
    std::vector<std::unique_ptr<GpuPart<T>>> parts_;
    int last_slot_ = 0;
};

std::optional<std::string> why_unavailable() { return why_no_device(); }

#else

std::optional<std::string> why_unavailable() {
    return "built without NCCL (nccl.h and libnccl not found beside the CUDA toolkit at configure time)";
}

#endif

}  // namespace

#ifdef SHOOTOUT_HAVE_NCCL
std::unique_ptr<Reduction> make_multi_gpu_reduction(std::shared_ptr<const MultiGpuSpec> spec, Elements input, int gpus) {
    if (gpus > device_count())
        throw std::runtime_error(spec->name + ": " + std::to_string(gpus) + " GPUs asked for, " + std::to_string(device_count()) + " visible");
    return naming_failures(spec->name, [&] {
        return input.visit<float, double>([&]<class T>(std::span<const T> values) -> std::unique_ptr<Reduction> {
            return std::make_unique<MultiGpuReduction<T>>(spec, values, gpus);
        });
    });
}
#endif

bool register_multi_gpu_backend(MultiGpuSpec spec) {
    auto shared = std::make_shared<const MultiGpuSpec>(std::move(spec));
    return register_backend({
        .name = shared->name,
        .device = kDevice,
        .description = shared->description,
        .timing = Timing::device_events,
        .cache = Cache::cold,
        .devices = 1,
        .batches = true,
        .multi_gpu = true,
        .traits = shared->traits,
        .element_types = shared->make_f64 ? std::vector{ElementType::f32, ElementType::f64} : std::vector{ElementType::f32},
        .unavailable_reason = why_unavailable,
        .prepare = [shared](Elements input, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
#ifdef SHOOTOUT_HAVE_NCCL
            return make_multi_gpu_reduction(shared, input, options.gpus);
#else
            (void)input, (void)options;
            throw std::logic_error(shared->name + ": prepared, but this build has no NCCL");
#endif
        },
        .device_info = device_info,
    });
}

}  // namespace shootout::cuda
