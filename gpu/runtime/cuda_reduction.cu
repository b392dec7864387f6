#include "gpu/runtime/cuda_reduction.cuh"

#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>

#include "bench/backend.hpp"
#include "gpu/runtime/cuda_check.hpp"
#include "gpu/runtime/device_buffer.cuh"
#include "gpu/runtime/device_copies.cuh"

namespace shootout::cuda {
namespace {

// Re-throws a failure with the backend's name in front, keeping its kind: an out-of-memory stays
// ResourceExhausted, so the harness skips the size instead of failing.
template <class F>
decltype(auto) naming_failures(const std::string& backend, F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const ResourceExhausted& e) {
        throw ResourceExhausted(backend + ": " + e.what());
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(backend + ": " + e.what());
    }
}

// The spec's DeviceSum for n elements of T.
template <class T, class Result>
std::unique_ptr<DeviceSum<Result, T>> make_sum(const CudaBackendSpec<Result>& spec, std::size_t n) {
    if constexpr (std::is_same_v<T, double>) return spec.make_f64(n);
    else return spec.make(n);
}

template <class Result, class T>
class CudaReduction final : public Reduction {
public:
    CudaReduction(const CudaBackendSpec<Result>& spec, std::span<const T> input, const PrepareOptions& options)
        : spec_(spec),
          n_(input.size()),
          transfer_(options.include_transfer),
          copies_(input, !transfer_, spec.writes_input ? static_cast<std::size_t>(options.batch) : 1, stream_),
          out_(1) {
        if (spec.writes_input && !transfer_ && n_ > 0) {
            pristine_ = DeviceBuffer<T>(n_);
            SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(pristine_.get(), copies_.first(), bytes(), cudaMemcpyDeviceToDevice, stream_));
        }
        if (transfer_) {
            staging_ = PinnedBuffer<T>(n_);
            if (n_ > 0) std::memcpy(staging_.get(), input.data(), bytes());
            host_out_ = PinnedBuffer<Result>(1);
        }
        if (n_ > 0) sum_ = make_sum<T>(spec, n_);
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    std::optional<double> run() override {
        return naming_failures(spec_.name, [&] {
            T* in = copies_.next();
            SHOOTOUT_CUDA_CHECK(cudaEventRecord(start_, stream_));
            if (transfer_ && n_ > 0)
                SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(in, staging_.get(), bytes(), cudaMemcpyHostToDevice, stream_));
            if (n_ > 0) sum_->enqueue(in, out_.get(), stream_);
            else SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0, sizeof(Result), stream_));  // the empty sum
            if (transfer_ && !library_result())
                SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(host_out_.get(), out_.get(), sizeof(Result), cudaMemcpyDeviceToHost, stream_));
            SHOOTOUT_CUDA_CHECK(cudaEventRecord(stop_, stream_));
            SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(stop_));
            float ms = 0;
            SHOOTOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
            restore(1);
            return static_cast<double>(ms) * 1e-3;
        });
    }

    double run_batch(int calls) override {
        return naming_failures(spec_.name, [&] {
            if (transfer_) throw std::logic_error("a batch of timed transfers was asked for");
            SHOOTOUT_CUDA_CHECK(cudaEventRecord(start_, stream_));
            for (int call = 0; call < calls; ++call) {
                T* in = copies_.next();
                if (n_ > 0) sum_->enqueue(in, out_.get(), stream_);
                else SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0, sizeof(Result), stream_));
            }
            SHOOTOUT_CUDA_CHECK(cudaEventRecord(stop_, stream_));
            SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(stop_));
            float ms = 0;
            SHOOTOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
            restore(static_cast<std::size_t>(calls));
            return static_cast<double>(ms) * 1e-3;
        });
    }

    double result() override {
        return naming_failures(spec_.name, [&] {
            if (auto sum = library_result()) return *sum;
            if (transfer_) return static_cast<double>(*host_out_.get());
            Result sum{};
            SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            SHOOTOUT_CUDA_CHECK(cudaMemcpy(&sum, out_.get(), sizeof sum, cudaMemcpyDeviceToHost));
            return static_cast<double>(sum);
        });
    }

private:
    std::size_t bytes() const { return n_ * sizeof(T); }

    // In-place kernels overwrote the copies the last `calls` calls read: put the input back, stream-
    // ordered after the stop event and before the next start event, so never timed.
    void restore(std::size_t calls) {
        if (!pristine_.get()) return;
        for (std::size_t back = 1; back <= calls; ++back)
            SHOOTOUT_CUDA_CHECK(
                cudaMemcpyAsync(copies_.previous(back), pristine_.get(), bytes(), cudaMemcpyDeviceToDevice, stream_));
    }
    std::optional<double> library_result() const { return sum_ ? sum_->host_result() : std::nullopt; }

    const CudaBackendSpec<Result>& spec_;
    std::size_t n_;
    bool transfer_;
    Stream stream_;
    Event start_, stop_;
    InputCopies<T> copies_;
    DeviceBuffer<T> pristine_;
    DeviceBuffer<Result> out_;
    PinnedBuffer<T> staging_;
    PinnedBuffer<Result> host_out_;
    std::unique_ptr<DeviceSum<Result, T>> sum_;
};

}  // namespace

template <class Result>
bool register_cuda_backend(CudaBackendSpec<Result> spec) {
    // The Backend's functions outlive this call and share the spec.
    auto shared = std::make_shared<const CudaBackendSpec<Result>>(std::move(spec));
    return register_backend({
        .name = shared->name,
        .device = Device::cuda,
        .description = shared->description,
        .timing = Timing::device_events,
        .supports_transfer = true,
        .batches = true,
        .traits = shared->traits,
        .element_types = shared->make_f64 ? std::vector{ElementType::f32, ElementType::f64} : std::vector{ElementType::f32},
        .unavailable_reason = why_no_device,
        .prepare = [shared](Elements input, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
            return naming_failures(shared->name, [&] {
                return input.visit([&]<class T>(std::span<const T> values) -> std::unique_ptr<Reduction> {
                    return std::make_unique<CudaReduction<Result, T>>(*shared, values, options);
                });
            });
        },
        .device_info = device_info,
    });
}

template bool register_cuda_backend<float>(CudaBackendSpec<float>);
template bool register_cuda_backend<double>(CudaBackendSpec<double>);

}  // namespace shootout::cuda
