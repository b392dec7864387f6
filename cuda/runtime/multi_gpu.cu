#include "cuda/runtime/multi_gpu.cuh"

#include <algorithm>
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

// One GPU's queue, shard copies (rotating as every device backend's: api/device_timing.hpp) and
// ShardSum, all made on that GPU.
template <class T>
struct GpuPart {
    GpuPart(int device, std::span<const T> shard, const MultiGpuSpec& spec)
        : device(device), copies(queue, shard, /*rotate=*/true, 1), sum(make_shard_sum<T>(spec, shard.size())) {}
    int device;
    CudaQueue queue;
    RotatingInput copies;
    std::unique_ptr<ShardSum<T>> sum;

    const T* next_copy() { return static_cast<const T*>(device_address(copies.memory(), copies.next())); }
};

// The timing rule (results/README.md, "nccl/* rows"): with every GPU's stream idle, a start event
// is recorded on each GPU, then every call's reductions and all-reduce are enqueued, then a stop
// event on each GPU; the time is the largest of the GPUs' start-to-stop times. A GPU's stop comes
// after its part of the all-reduce, which cannot end before every GPU has joined it, so the largest
// time runs from that GPU's start to the last GPU's end; the starts are recorded back to back by
// the host (microseconds apart, before any work is enqueued), so it falls short of "first GPU's
// start to last GPU's end" by at most that spread.
template <class T>
class MultiGpuReduction final : public Reduction {
public:
    MultiGpuReduction(const MultiGpuSpec& spec, std::span<const T> input, int gpus)
        : spec_(spec), comms_(communicators(gpus)) {
        const DeviceScope restore(0);
        for (int g = 0; g < gpus; ++g) {
            select_device(g);
            const Shard shard = shard_of(input.size(), g, gpus);
            parts_.push_back(std::make_unique<GpuPart<T>>(g, input.subspan(shard.begin, shard.size()), spec));
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

    double result() override {
        const DeviceScope on(parts_.front()->device);
        parts_.front()->queue.finish();
        return parts_.front()->sum->result();
    }

private:
    double timed(int calls) {
        return naming_failures(spec_.name, [&] {
            const DeviceScope restore(0);
            for (auto& part : parts_) {
                select_device(part->device);
                part->queue.finish();
            }
            for (auto& part : parts_) {
                select_device(part->device);
                part->queue.start_timer();
            }
            for (int call = 0; call < calls; ++call) {
                for (auto& part : parts_) {
                    select_device(part->device);
                    part->sum->enqueue(part->next_copy(), part->queue.stream());
                }
                SHOOTOUT_NCCL_CHECK(ncclGroupStart());
                for (std::size_t g = 0; g < parts_.size(); ++g) parts_[g]->sum->all_reduce(comms_[g], parts_[g]->queue.stream());
                SHOOTOUT_NCCL_CHECK(ncclGroupEnd());
            }
            for (auto& part : parts_) {
                select_device(part->device);
                part->queue.record_stop();
            }
            double longest = 0;
            for (auto& part : parts_) {
                select_device(part->device);
                longest = std::max(longest, part->queue.elapsed_seconds());
            }
            return longest;
        });
    }

    const MultiGpuSpec& spec_;
    const std::vector<ncclComm_t>& comms_;
    std::vector<std::unique_ptr<GpuPart<T>>> parts_;
};

std::optional<std::string> why_unavailable() { return why_no_device(); }

#else

std::optional<std::string> why_unavailable() {
    return "built without NCCL (nccl.h and libnccl not found beside the CUDA toolkit at configure time)";
}

#endif

}  // namespace

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
            if (options.gpus > device_count())
                throw std::runtime_error(shared->name + ": " + std::to_string(options.gpus) + " GPUs asked for, " +
                                         std::to_string(device_count()) + " visible");
            return naming_failures(shared->name, [&] {
                return input.visit<float, double>([&]<class T>(std::span<const T> values) -> std::unique_ptr<Reduction> {
                    return std::make_unique<MultiGpuReduction<T>>(*shared, values, options.gpus);
                });
            });
#else
            (void)input, (void)options;
            throw std::logic_error(shared->name + ": prepared, but this build has no NCCL");
#endif
        },
        .device_info = device_info,
    });
}

}  // namespace shootout::cuda
