// What the nccl/* backends share: the input split into equal contiguous shards over GPUs 0 .. N-1
// (api/shard.hpp, shard_of()), each shard resident on its GPU and rotating past 4x its L2 as
// CudaReduction's inputs do; per call, every GPU reduces its shard into a device partial, and one
// NCCL all-reduce (a group over one communicator per GPU, from ncclCommInitAll) combines the
// partials. In a batch, call k's all-reduce runs on a second ("combine") stream per GPU while call
// k+1's reduction runs on the compute stream, each call in its own partial slot (kCallsInFlight). A
// backend supplies only the per-GPU ShardSum. The timing rule is in multi_gpu.cu.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "api/backend.hpp"

#ifdef SHOOTOUT_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>
#endif

namespace shootout::cuda {

template <class T = float>
class ShardSum;

struct MultiGpuSpec {
    std::string name;
    std::string description;
    Traits traits;
    // Makes one GPU's ShardSum for a shard of n >= 0 elements, with that GPU current. Empty in a
    // build without NCCL, where the backend is listed as unavailable.
    std::function<std::unique_ptr<ShardSum<float>>(std::size_t n)> make;
    // The same for float64 shards, for a backend that takes them too; empty for one that takes
    // float32 only.
    std::function<std::unique_ptr<ShardSum<double>>(std::size_t n)> make_f64 = {};
};

// The calls a GPU may have in flight, each with its own partial slot (call k of a batch uses slot
// k % kCallsInFlight). 2 would let call k's all-reduce overlap call k+1's read; 4 lets it lag
// further behind (its kernel may get SMs only as the next read's blocks leave, and it waits for the
// slowest GPU) without stalling the reads.
inline constexpr int kCallsInFlight = 4;

// Registers the backend: multi-GPU (PrepareOptions::gpus), device events, batching; without NCCL
// (or without a device) listed as unavailable with the reason. Returns true.
bool register_multi_gpu_backend(MultiGpuSpec spec);

#ifdef SHOOTOUT_HAVE_NCCL

// The nccl/* reduction of `input` over GPUs 0 .. gpus-1 with the spec's ShardSums, as the registered
// backend prepares it (tests drive ShardSums of their own through it). Throws std::runtime_error
// when fewer GPUs are visible.
std::unique_ptr<Reduction> make_multi_gpu_reduction(std::shared_ptr<const MultiGpuSpec> spec, Elements input, int gpus);

// Throws std::runtime_error naming the call and NCCL's reason.
inline void check_nccl(ncclResult_t status, const char* call) {
    if (status == ncclSuccess) return;
    const char* detail = ncclGetLastError(nullptr);
    throw std::runtime_error(std::string(call) + " failed: " + ncclGetErrorString(status) +
                             (detail && *detail ? std::string(" (") + detail + ")" : std::string()));
}
#define SHOOTOUT_NCCL_CHECK(call) ::shootout::cuda::check_nccl((call), #call)

// One GPU's part of a multi-GPU reduction of elements of T, made and called with its GPU current.
// It keeps kCallsInFlight partial slots; the caller orders the streams, so that a slot is written
// only after its last all-reduce has ended, and all-reduced only after its reduction has.
template <class T>
class ShardSum {
public:
    virtual ~ShardSum() = default;
    // Enqueues the reduction of in[0..n) (n as made; in 16-byte aligned; nothing to read when n is
    // 0) into partial slot `slot` (0 .. kCallsInFlight-1) on `stream`.
    virtual void enqueue(const T* in, int slot, cudaStream_t stream) = 0;
    // Enqueues this GPU's part of the all-reduce of the partials in `slot`, inside an
    // ncclGroupStart/End that holds every GPU's part.
    virtual void all_reduce(int slot, ncclComm_t comm, cudaStream_t stream) = 0;
    // The combined sum in `slot`, once its all-reduce has finished on this GPU; read after timing.
    virtual double result(int slot) = 0;
};

#endif

}  // namespace shootout::cuda
