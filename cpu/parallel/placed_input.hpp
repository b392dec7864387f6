// A CPU backend's own copy of its input, laid out the way the backend reads it.
//
// The harness fills one input with threads of its own. A backend that reads it in parts on several
// threads wants each part on the NUMA node of the thread that reads it, and every backend wants it
// on transparent huge pages (platform/memory.hpp says why). So each CPU backend, in prepare and so
// outside timing, copies the input into a platform::HugePageRegion of its own, each part copied (and so first
// touched, and so placed) by the thread that will read it, and then reads that copy. The cost is a
// second copy of the input while one backend is prepared; one that does not fit is skipped by name.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>

#include "api/backend.hpp"
#include "api/element_type.hpp"
#include "platform/memory.hpp"
#include "cpu/parallel/static_chunks.hpp"
#include "platform/system.hpp"

namespace shootout {

// Test hook: when set, called on the copying thread right after each part is copied, with the part
// and its chunk of the copy. Set it only while no backend is being prepared.
using PlacementObserver = std::function<void(int part, Elements chunk)>;
inline PlacementObserver& placement_observer() {
    static PlacementObserver observer;
    return observer;
}

// The copy of an input of element type T (float or double).
template <class T>
class PlacedInputOf {
public:
    // run_parts(task) calls task(part) once for every part in [0, parts), each on the thread that
    // reads static_chunk(input, part, parts) when the backend runs; task copies that chunk. Throws
    // ResourceExhausted when the copy does not fit in the memory left.
    template <class RunParts>
    PlacedInputOf(std::span<const T> input, int parts, RunParts&& run_parts) {
        if (input.empty()) return;
        // The copy starts as far into a 4 KiB page as the input does: the harness's page-aligned input
        // stays page-aligned, and a test's deliberately unaligned one stays unaligned.
        const std::size_t offset = reinterpret_cast<std::uintptr_t>(input.data()) % platform::kSmallPage;
        // Headroom for page tables and whatever else runs beside the benchmark.
        if (static_cast<double>(input.size_bytes()) > 0.9 * static_cast<double>(platform::available_memory_bytes()))
            throw ResourceExhausted("no memory left for this backend's copy of the input (" +
                                    std::to_string(input.size_bytes() >> 20) + " MiB)");
        memory_ = platform::HugePageRegion(offset + input.size_bytes());
        T* copy = reinterpret_cast<T*>(memory_.data() + offset);
        auto copy_part = [&](int part) {
            const std::span<const T> chunk = static_chunk(input, part, parts);
            T* to = copy + (chunk.data() - input.data());
            if (!chunk.empty()) std::memcpy(to, chunk.data(), chunk.size_bytes());
            if (placement_observer()) placement_observer()(part, std::span<const T>(to, chunk.size()));
        };
        run_parts(copy_part);
        copy_ = {copy, input.size()};
    }

    std::span<const T> span() const { return copy_; }

private:
    platform::HugePageRegion memory_;
    std::span<const T> copy_;
};

// The float copy, as every float-only backend names it.
using PlacedInput = PlacedInputOf<float>;

}  // namespace shootout
