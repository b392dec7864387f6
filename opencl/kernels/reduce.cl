// Floating-point sums of a device array: a work-item's grid-stride share, the work-group's sum, and
// the kernels built from them. Build options:
//   LOADS        16-byte loads a work-item issues before it adds the first (1 to 8)
//   SUBGROUPS    the work-group's sum by sub-group reductions (cl_khr_subgroups) instead of a tree
//                in local memory
//   ELEMENT_F64  1: the input, and every sum, double (cl_khr_fp64); 0: float
//                (opencl/runtime/element_dispatch.hpp)
// Every kernel but no_work takes the input as a buffer, an element offset into it (a multiple of 64:
// 256-byte aligned), and n. Partitions and trees depend on n and the launch shape alone, so a kernel that
// combines in a fixed order gives the same bits on every call.
#ifndef ELEMENT_F64
#error "ELEMENT_F64 is a build option: opencl/runtime/element_dispatch.hpp"
#endif
#ifdef SUBGROUPS
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

// real: the element and sum type; real_vector: 16 bytes of them, LANES lanes, added by lanes_sum().
#if ELEMENT_F64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real_vector;
#define LANES 2
real lanes_sum(real_vector v) { return v.x + v.y; }
#else
typedef float real;
typedef float4 real_vector;
#define LANES 4
real lanes_sum(real_vector v) { return (v.x + v.y) + (v.z + v.w); }
#endif

// This work-item's share of in[0..n): passes of LOADS 16-byte loads, all in flight before the first
// add, each lane summed apart, then the vectors left one at a time, then the n % LANES elements of
// the end.
real thread_partial(global const real* in, ulong n) {
    const ulong thread = get_global_id(0), threads = get_global_size(0);
    global const real_vector* vectors_in = (global const real_vector*)in;
    const ulong vectors = n / LANES;
    real_vector sum = (real_vector)(0);
    ulong i = thread;
    for (; i + (LOADS - 1) * threads < vectors; i += LOADS * threads) {
        real_vector v[LOADS];
        for (int k = 0; k < LOADS; ++k) v[k] = vectors_in[i + k * threads];
        for (int k = 0; k < LOADS; ++k) sum += v[k];
    }
    for (; i < vectors; i += threads) sum += vectors_in[i];
    if (thread < n % LANES) sum.x += in[LANES * vectors + thread];
    return lanes_sum(sum);
}

// The sum of x over the work-group, in every work-item. scratch: a real per work-item;
// get_local_size(0) a power of two.
real group_sum(real x, local real* scratch) {
    const uint item = get_local_id(0);
#ifdef SUBGROUPS
    x = sub_group_reduce_add(x);
    if (get_sub_group_local_id() == 0) scratch[get_sub_group_id()] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (item == 0) {
        for (uint s = 1; s < get_num_sub_groups(); ++s) x += scratch[s];
        scratch[0] = x;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    scratch[item] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = get_local_size(0) / 2; width > 0; width /= 2) {
        if (item < width) scratch[item] += scratch[item + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    const real total = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read it before scratch is used again
    return total;
}

// The sum of partial[0..count) by one work-group, in a fixed order.
real sum_partials(volatile global const real* partial, uint count, local real* scratch) {
    real sum = 0;
    for (uint g = get_local_id(0); g < count; g += get_local_size(0)) sum += partial[g];
    return group_sum(sum, scratch);
}

// The two-kernel tree, first kernel: each work-group's sum to partial[group].
kernel void partials(global const real* in, ulong offset, ulong n, global real* partial, local real* scratch) {
    const real sum = group_sum(thread_partial(in + offset, n), scratch);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = sum;
}

// The two-kernel tree, second kernel, one work-group: the partials' sum to *out.
kernel void combine(global const real* partial, uint count, global real* out, local real* scratch) {
    const real sum = sum_partials(partial, count, scratch);
    if (get_local_id(0) == 0) *out = sum;
}

// One launch: each work-group writes its sum to partial[group] and takes a ticket; the group that
// draws the last one sums the partials in group order into *out and resets the ticket for the next
// call. The fence orders a group's partial before its ticket; the last group reads the partials
// through volatile loads, which skip a compute unit's own (non-coherent) cache.
kernel void single_pass(global const real* in, ulong offset, ulong n, volatile global real* partial,
                        volatile global uint* ticket, global real* out, local real* scratch) {
    local uint last;
    const real sum = group_sum(thread_partial(in + offset, n), scratch);
    if (get_local_id(0) == 0) {
        partial[get_group_id(0)] = sum;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(ticket) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    const real total = sum_partials(partial, get_num_groups(0), scratch);
    if (get_local_id(0) == 0) {
        *out = total;
        *ticket = 0;
    }
}

#if !ELEMENT_F64
// The read ceiling: every element loaded and added once, each work-group's sum stored to
// out[group]; no atomics and no second pass (the host adds the group sums after timing). Floats only.
kernel void read_all(global const float* in, ulong offset, ulong n, global float* out, local float* scratch) {
    const float sum = group_sum(thread_partial(in + offset, n), scratch);
    if (get_local_id(0) == 0) out[get_group_id(0)] = sum;
}
#endif

// The launch floor (opencl/baseline/launch): a kernel that does nothing, what any launch costs.
kernel void no_work(void) {}
