// accumulate_nvbench: the CUDA backends under NVIDIA's nvbench, for its cold and batch times, noise
// criteria, JSON and compare scripts. One benchmark, "accumulate", with the axes Backend (every
// one-GPU CUDA backend of the registry, from its Backend record) x Elements (powers of two) x dtype
// (every element type some of them take; a backend's states of a type it does not take are skipped);
// each state times exactly the call the backend's harness rows time, DeviceCall::enqueue, on
// nvbench's stream, over the harness's input (uniform, seed 42) rotated past 4x the L2 as those rows
// rotate it. So nvbench's batch time is the harness's batched row (scripts/nvbench_check.sh holds
// them to 3%), its cold time an isolated call after an L2 flush.
//
//   accumulate_nvbench -a 'Backend=[cuda/single-pass,cuda/cub]' -a 'Elements[pow2]=[24:30]' --json out.json
//
// A backend that overwrites its input (the in-place ladder steps) is timed cold only, its copy
// restored after each timed call; one whose call waits for the device (cuda/thrust) cold only too,
// as nvbench's batch cannot hold such calls back. A state that cannot run is skipped with the reason.
// Each state adds the relative error of its last call's sum against the exact sum (accumulate/rel_error).
#include <nvbench/nvbench.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "api/device_timing.hpp"
#include "api/element_type.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "cuda/runtime/cuda_api.hpp"
#include "cuda/runtime/cuda_queue.cuh"
#include "cuda/runtime/device.hpp"

namespace shootout::cuda {
namespace {

// The backends nvbench times: those on one CUDA device, in one process, timed through the device
// timing layer (multi-GPU and MPI backends have their own records and rules).
std::vector<const Backend*> timed_backends() {
    std::vector<const Backend*> timed;
    for (const Backend& backend : registered_backends())
        if (backend.device == kDevice && backend.device_parts && !backend.multi_gpu && !backend.distributed)
            timed.push_back(&backend);
    return timed;
}

// One input, the harness's default, and its exact sum. States that differ only in the backend, the
// axis nvbench varies fastest, share it: generating and exactly summing 2^30 elements takes seconds.
struct Input {
    ElementType type;
    std::size_t n;
    HostArray values;
    ExactAccumulator exact;
};

const Input& input_of(ElementType type, std::size_t n) {
    static std::optional<Input> last;
    if (last && last->type == type && last->n == n) return *last;
    last.reset();  // one input held at a time
    HostArray values(type, n);
    fill(values, InputSpec{}, n, 0);
    ExactAccumulator exact = exact_sum(values.elements());
    return last.emplace(Input{type, n, std::move(values), std::move(exact)});
}

void accumulate(nvbench::state& state) {
    const Backend* backend = find_backend(state.get_string("Backend"));
    const std::optional<ElementType> type = element_type_named(state.get_string("dtype"));
    const auto n = static_cast<std::size_t>(state.get_int64("Elements"));
    if (!backend || !backend->device_parts || backend->device != kDevice)
        return state.skip("'" + state.get_string("Backend") + "' names no one-GPU CUDA backend");
    if (!type) return state.skip("'" + state.get_string("dtype") + "' is not an element type (f32, f64, f16, bf16)");
    if (!backend->takes(*type)) return state.skip(backend->name + " takes no " + state.get_string("dtype"));
    if (auto reason = backend->why_unavailable()) return state.skip(*reason);
    if (auto reason = backend->why_type_unavailable(*type)) return state.skip(*reason);
    const DeviceBackendParts& parts = *backend->device_parts;

    try {
        // nvbench made its device current in its own CUDA runtime; the backends use this one's.
        select_device(state.get_device()->get_id());
        const Input& input = input_of(*type, n);
        const Elements elements = input.values.elements();
        CudaQueue queue(state.get_cuda_stream());
        RotatingInput copies(queue, elements, true, 1);
        std::unique_ptr<DeviceQueue::Memory> pristine;
        if (parts.writes_input) {
            pristine = queue.allocate(elements.size_bytes());
            queue.copy(*pristine, 0, copies.memory(), 0, elements.size_bytes());
        }
        const std::unique_ptr<DeviceCall> call = parts.make_call(queue, elements);
        queue.finish();

        state.add_element_count(n);
        state.add_global_memory_reads(input_bytes(*type, n));
        if (parts.writes_input) {
            state.exec(nvbench::exec_tag::timer | nvbench::exec_tag::gpu, [&](nvbench::launch&, auto& timer) {
                const std::size_t offset = copies.next();
                timer.start();
                call->enqueue(copies.memory(), offset, false);
                timer.stop();
                queue.copy(copies.memory(), offset, *pristine, 0, elements.size_bytes());
            });
        } else if (parts.synchronizes) {
            state.exec(nvbench::exec_tag::sync | nvbench::exec_tag::gpu,
                       [&](nvbench::launch&) { call->enqueue(copies.memory(), copies.next(), false); });
        } else {
            state.exec(nvbench::exec_tag::gpu, [&](nvbench::launch&) { call->enqueue(copies.memory(), copies.next(), false); });
        }

        queue.finish();
        nvbench::summary& error = state.add_summary("accumulate/rel_error");
        error.set_string("name", "Rel. error");
        error.set_string("description", "|sum - S| / |S| of the last call, S the exact sum (the CSV's rel_error)");
        error.set_float64("value", relative_error(call->result(), input.exact));
        nvbench::summary& configuration = state.add_summary("accumulate/configuration");
        configuration.set_string("name", "Configuration");
        configuration.set_string("description", "what the backend chose for this input (the CSV's configuration column)");
        configuration.set_string("value", call->configuration());
        configuration.set_string("hide", "in the JSON only");
    } catch (const ResourceExhausted& e) {
        state.skip(backend->name + ": " + e.what());
    } catch (const std::bad_alloc&) {
        state.skip("the input does not fit in host memory");
    }
}

struct Accumulate {
    void operator()(nvbench::state& state, nvbench::type_list<>) { accumulate(state); }
};

void register_benchmark() {
    nvbench::benchmark_base& bench = nvbench::benchmark_manager::get().add(std::make_unique<nvbench::benchmark<Accumulate>>());
    bench.set_name("accumulate");
    const std::vector<const Backend*> timed = timed_backends();
    std::vector<std::string> names, types;
    for (const Backend* backend : timed) names.push_back(backend->name);
    for (ElementType type : kElementTypes)
        if (std::any_of(timed.begin(), timed.end(), [type](const Backend* backend) { return backend->takes(type); }))
            types.emplace_back(to_string(type));
    bench.add_string_axis("Backend", names);
    bench.add_int64_power_of_two_axis("Elements", {20, 24, 28});
    bench.add_string_axis("dtype", types);
}

}  // namespace
}  // namespace shootout::cuda

int main(int argc, char** argv) try {
    shootout::cuda::register_benchmark();
    NVBENCH_MAIN_BODY(argc, argv);
}
NVBENCH_MAIN_CATCH_EXCEPTIONS
