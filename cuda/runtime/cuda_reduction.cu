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
    CudaCall(const CudaBackendSpec& spec, CudaQueue& queue, Elements input)
        : queue_(queue), out_(1), host_out_(1), sum_(input.empty() ? nullptr : spec.make(input.size(), input.type())) {}

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

bool register_cuda_backend(CudaBackendSpec spec) {
    // The Backend's functions outlive this call and share the spec.
    auto shared = std::make_shared<const CudaBackendSpec>(std::move(spec));
    return register_backend(device_backend({
        .name = shared->name,
        .device = kDevice,
        .description = shared->description,
        .traits = shared->traits,
        .element_types = shared->element_types,
        .traits_by_type = shared->traits_by_type,
        .unavailable_reason = [shared]() -> std::optional<std::string> {
            if (auto reason = why_no_device()) return reason;
            return shared->unavailable_reason ? shared->unavailable_reason() : std::nullopt;
        },
        .device_info = device_info,
        .parts = {
            .make_queue = [] { return std::make_unique<CudaQueue>(); },
            .make_call = [shared](DeviceQueue& queue, Elements input) -> std::unique_ptr<DeviceCall> {
                return std::make_unique<CudaCall>(*shared, static_cast<CudaQueue&>(queue), input);
            },
            .writes_input = shared->writes_input,
            .synchronizes = shared->synchronizes,
        },
    }));
}

}  // namespace shootout::cuda
