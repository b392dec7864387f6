#include "cuda/runtime/cuda_reduction.cuh"

#include <cstring>
#include <memory>
#include <utility>

#include "api/device_timing.hpp"
#include "cuda/runtime/cuda_api.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/cuda_queue.cuh"
#include "cuda/runtime/device_buffer.cuh"

namespace shootout::cuda {
namespace {

// One backend's DeviceSum as the timing layer's call: the empty sum, and the result's copy back.
class CudaCall final : public DeviceCall {
public:
    // An empty input is the empty sum, 0, with no launch; but the launch floor reads nothing whatever
    // the size, so it launches (and sums nothing) on an empty input too.
    CudaCall(const DeviceBackendSpec<MakeSum>& backend, CudaQueue& queue, Elements input)
        : queue_(queue),
          out_(1),
          host_out_(1),
          sum_(input.empty() && backend.traits.role != Role::launch_floor ? nullptr : backend.make(input.size(), input.type())) {}

    void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool result_to_host) override {
        if (sum_) sum_->enqueue_any(device_address(input, offset), out_.get(), queue_.stream());
        else SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0, sizeof(double), queue_.stream()));  // the empty sum, 0 as either type
        to_host_ = result_to_host;
        if (to_host_ && !library_result())
            SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(host_out_.get(), out_.get(), result_bytes(), cudaMemcpyDeviceToHost, queue_.stream()));
    }

    double result() override {
        if (auto sum = library_result()) return *sum;
        double bytes = 0;  // room for either result type
        if (to_host_) std::memcpy(&bytes, host_out_.get(), result_bytes());
        else SHOOTOUT_CUDA_CHECK(cudaMemcpy(&bytes, out_.get(), result_bytes(), cudaMemcpyDeviceToHost));
        return sum_ ? sum_->widen_result(&bytes) : bytes;
    }

private:
    std::optional<double> library_result() const { return sum_ ? sum_->host_result() : std::nullopt; }
    std::size_t result_bytes() const { return sum_ ? sum_->result_bytes() : sizeof(double); }

    CudaQueue& queue_;
    DeviceBuffer<double> out_;
    PinnedBuffer<double> host_out_;
    std::unique_ptr<AnyDeviceSum> sum_;
    bool to_host_ = false;
};

}  // namespace

std::unique_ptr<DeviceQueue> make_queue() { return std::make_unique<CudaQueue>(); }

std::unique_ptr<DeviceCall> make_call(const DeviceBackendSpec<MakeSum>& backend, DeviceQueue& queue, Elements input) {
    return std::make_unique<CudaCall>(backend, static_cast<CudaQueue&>(queue), input);
}

}  // namespace shootout::cuda
