// How the bandwidth-bound agents load their input: 16-byte loads of data that nothing writes while the
// kernel runs, through the read-only (non-coherent) path, with an optional L2 prefetch-size hint. The
// 16 bytes come as four 32-bit words, whatever the element type (element_vector.cuh reads them).
#pragma once

#include <cuda_runtime.h>

namespace shootout::cuda {

// ldg:     __ldg, ld.global.nc: what every agent used so far (CUB's LOAD_LDG).
// l2_256b: ld.global.nc.L2::256B: the same load, asking L2 to fetch the whole 256-byte block around
//          the 32-byte sector each warp-quarter misses on. A streaming reduction reads every byte of
//          that block soon anyway (the next loads of this and neighbouring warps), so the hint only
//          moves DRAM requests earlier and makes them larger; whether HBM gains from it is for the
//          sweep to say. Before sm_80 (no such qualifier) it is ldg.
enum class LoadHint { ldg, l2_256b };

template <LoadHint Hint>
__device__ __forceinline__ uint4 load_stream(const uint4* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (Hint == LoadHint::l2_256b) {
        uint4 v;
        // Not volatile: a pure load of read-only data, which the compiler may schedule as freely as __ldg.
        asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(__cvta_generic_to_global(p)));
        return v;
    }
#endif
    return __ldg(p);
}

}  // namespace shootout::cuda
