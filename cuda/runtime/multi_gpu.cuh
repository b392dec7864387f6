// What the nccl/* backends share: the input split into equal contiguous shards over GPUs 0 .. N-1
// (api/shard.hpp, shard_of()), each shard resident on its GPU and rotating past 4x its L2 as
// CudaReduction's inputs do; per call, every GPU reduces its shard into a device partial, and one
// NCCL all-reduce (a group over one communicator per GPU, from ncclCommInitAll) combines the
// partials. A backend supplies only the per-GPU ShardSum. The timing rule is in multi_gpu.cu.
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

// Registers the backend: multi-GPU (PrepareOptions::gpus), device events, batching; without NCCL
// (or without a device) listed as unavailable with the reason. Returns true.
bool register_multi_gpu_backend(MultiGpuSpec spec);

#ifdef SHOOTOUT_HAVE_NCCL

// Throws std::runtime_error naming the call and NCCL's reason.
inline void check_nccl(ncclResult_t status, const char* call) {
    if (status == ncclSuccess) return;
    const char* detail = ncclGetLastError(nullptr);
    throw std::runtime_error(std::string(call) + " failed: " + ncclGetErrorString(status) +
                             (detail && *detail ? std::string(" (") + detail + ")" : std::string()));
}
#define SHOOTOUT_NCCL_CHECK(call) ::shootout::cuda::check_nccl((call), #call)

// One GPU's part of a multi-GPU reduction of elements of T, made and called with its GPU current.
template <class T>
class ShardSum {
public:
    virtual ~ShardSum() = default;
    // Enqueues the reduction of in[0..n) (n as made; in 16-byte aligned; nothing to read when n is
    // 0) into this GPU's partial on `stream`.
    virtual void enqueue(const T* in, cudaStream_t stream) = 0;
    // Enqueues this GPU's part of the all-reduce of the partials, inside an ncclGroupStart/End that
    // holds every GPU's part.
    virtual void all_reduce(ncclComm_t comm, cudaStream_t stream) = 0;
    // The combined sum, once the all-reduce has finished on this GPU; read once, after timing.
    virtual double result() = 0;
};

#endif

}  // namespace shootout::cuda
