// opencl/exact: the exact sum of floats, doubles, float16 or bfloat16 in one launch, rounded once to
// double: exact/exact_accumulator.hpp's number (the one the CPU and CUDA exact backends share), so
// every backend returns the same bits. Built in cuda/exact's layers, each a file included here
// (opencl/embed_kernels.cmake inlines them): primitives (exact_digits.cl), the thread level for the
// type (exact_window_sum.cl, exact_half_sum.cl, exact_expansion_sum.cl), the agent's loop
// (exact_agent.cl), the work-group level (exact_group.cl), and this kernel, the dispatch level:
//  1. each work-item adds its grid-stride part through its type's thread sum, in registers;
//  2. the group sums the digits its items reach (exact_group.cl; the terms themselves, cut into
//     digits once, when its items' terms share their powers of two) into its slot of `partial`:
//     specials, the digit range [lo, hi], then those digits; then it takes a ticket;
//  3. the group that draws the last ticket sums the slots' digits over the union of their ranges,
//     rounds, writes the double's bits to *out and resets the ticket.
// Only 32-bit atomics; no order of groups changes the integer sums. Build options:
//   ELEMENT_F64  1: doubles (their fast path needs cl_khr_fp64; without it each goes to the digits);
//                0: floats, or the 16-bit type named by INPUT_F16 / INPUT_BF16
//   LOADS        16-byte loads a work-item keeps in flight
//   DIGITS       the digits of the format summed in: 10 for floats and the 16-bit types, 67 for doubles
#ifndef ELEMENT_F64
#error "ELEMENT_F64 is a build option: opencl/runtime/element_dispatch.hpp"
#endif
#pragma OPENCL FP_CONTRACT OFF
#if ELEMENT_F64 && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if ELEMENT_F64
typedef ulong InElement;
#elif defined(INPUT_F16) || defined(INPUT_BF16)
typedef ushort InElement;
#else
typedef uint InElement;
#endif

#include "opencl/kernels/exact_digits.cl"
#if ELEMENT_F64
#include "opencl/kernels/exact_expansion_sum.cl"
#elif defined(INPUT_F16)
#include "opencl/kernels/exact_half_sum.cl"
#else
#include "opencl/kernels/exact_window_sum.cl"
#endif
#include "opencl/kernels/exact_agent.cl"
#include "opencl/kernels/exact_group.cl"

// A group's slot in `partial`: SLOT_HEADER longs (specials, lo, hi), then DIGITS digits, of which
// only [lo, hi] are written.
#define SLOT_HEADER 3
#define SLOT_LONGS (SLOT_HEADER + DIGITS)

kernel void exact_sum(global const InElement* in, ulong offset, ulong n, volatile global long* partial,
                      volatile global uint* ticket, global ulong* out, local long4* scratch) {
    local GroupRange shared;
    local GroupTerms agree;
    local uint last;
    const uint item = get_local_id(0);
    long digits[DIGITS];
    int shared_terms;
    uint specials;
    const ItemTotal total =
        group_terms(add_thread_part(in + offset, n, digits), &specials, &shared_terms, scratch, &agree);
    int lo, hi;
    item_digit_range(&total, &lo, &hi);
    volatile global long* slot = partial + (ulong)get_group_id(0) * SLOT_LONGS;
    GroupRange range = {lo, hi, specials};
    if (shared_terms) {  // every item holds the group's total, so its digit range; item 0 writes them
        if (item == 0)
            for (int d = lo; d <= hi; ++d) slot[SLOT_HEADER + d] = item_digit(&total, digits, d);
    } else {
        range = group_range(lo, hi, specials, &shared);
        for (int d = range.lo; d <= range.hi; d += 4) {
            const long4 sum = group_sum4((long4)(item_digit(&total, digits, d), item_digit(&total, digits, d + 1),
                                                 item_digit(&total, digits, d + 2), item_digit(&total, digits, d + 3)),
                                         scratch);
            if (item == 0) {
                const long s[4] = {sum.x, sum.y, sum.z, sum.w};
                for (int c = 0; c < 4 && d + c <= range.hi; ++c) slot[SLOT_HEADER + d + c] = s[c];
            }
        }
    }
    if (item == 0) {
        slot[0] = range.specials;
        slot[1] = range.lo;
        slot[2] = range.hi;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(ticket) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);

    // The last group: the union of the slots' ranges, then each digit of it over every slot that
    // holds it, in group order.
    const uint groups = get_num_groups(0);
    lo = DIGITS;
    hi = -1;
    uint seen = 0;
    for (uint g = item; g < groups; g += get_local_size(0)) {
        volatile global const long* other = partial + (ulong)g * SLOT_LONGS;
        seen |= (uint)other[0];
        lo = min(lo, (int)other[1]);
        hi = max(hi, (int)other[2]);
    }
    range = group_range(lo, hi, seen, &shared);
    for (int k = 0; k < DIGITS; ++k) digits[k] = 0;
    for (int d = range.lo; d <= range.hi; d += 4) {
        long4 sum = (long4)(0);
        for (uint g = item; g < groups; g += get_local_size(0)) {
            volatile global const long* other = partial + (ulong)g * SLOT_LONGS;
            const int from = (int)other[1], to = (int)other[2];
            sum.x += d >= from && d <= to ? other[SLOT_HEADER + d] : 0;
            sum.y += d + 1 >= from && d + 1 <= to ? other[SLOT_HEADER + d + 1] : 0;
            sum.z += d + 2 >= from && d + 2 <= to ? other[SLOT_HEADER + d + 2] : 0;
            sum.w += d + 3 >= from && d + 3 <= to ? other[SLOT_HEADER + d + 3] : 0;
        }
        sum = group_sum4(sum, scratch);
        if (item == 0) {
            const long s[4] = {sum.x, sum.y, sum.z, sum.w};
            for (int c = 0; c < 4 && d + c <= range.hi; ++c) digits[d + c] = s[c];
        }
    }
    if (item == 0) {
        *out = round_to_double(digits, range.specials);
        *ticket = 0;
    }
}
