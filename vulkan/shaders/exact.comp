// vulkan/exact: the exact sum rounded once to double in one dispatch, the same bits as cpu/exact/*
// and cuda/exact (its layers in GLSL). Agent and dispatch level, over exact/thread_sum.glsl (an
// invocation's sum in registers), exact/group_digit_sum.glsl (subgroup and workgroup digits) and
// exact/digits.glsl (the superaccumulator and the rounding):
//  1. Each invocation sums its grid-stride share, trips of kLoadsInFlight 16-byte loads all issued
//     before the first is added, through its type's thread sum; the n % lanes elements after the
//     whole vectors one per invocation.
//  2. The workgroup's digits: subgroupAdd into a column per subgroup, then a sum over the columns.
//  3. Each workgroup writes its DIGITS + 1 words (the digits, then the specials) to its slots and
//     takes a ticket; the one that draws the last sums every workgroup's words, rounds, writes the
//     double's bits and resets the ticket. Integer sums only: no partition or order of workgroups
//     changes the result. reduce.comp's memory model, with a workgroup barrier between the slot
//     stores of the invocations and the one invocation's release.
// Compiled once per element type: ELEMENT_F32, ELEMENT_F16 or ELEMENT_BF16 1 (16-bit storage for
// the tail's loads; bfloat16 read as 16-bit integers). Every module needs shaderInt64 and 64-bit subgroup arithmetic (shaderSubgroupExtendedTypes).
// Specialization constants: 0 the workgroup size, 1 the loads in flight, 2 the most subgroups a
// workgroup can have (vulkan/backends/exact.cpp).
#version 460
#pragma use_vulkan_memory_model
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_GOOGLE_include_directive : require
#if ELEMENT_F16 || ELEMENT_BF16
#extension GL_EXT_shader_16bit_storage : require
#endif

// The superaccumulator's format (exact::kDigits<float> and kUnitExponent<float>): floats' (every
// 16-bit value is a float).
#define DIGITS 10
#define UNIT_EXPONENT (-149)

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int kLoadsInFlight = 4;
layout(constant_id = 2) const uint kMaxSubgroups = 32;

// Elements a 16-byte vector holds; the tail's element as its bits.
#if ELEMENT_F32
const uint kLanes = 4;
#define ELEMENT_BITS uint
#define ELEMENT_ALIGN 4
#else
const uint kLanes = 8;
#define ELEMENT_BITS uint16_t
#define ELEMENT_ALIGN 2
#endif

layout(buffer_reference, std430, buffer_reference_align = 16) readonly restrict buffer Vectors { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = ELEMENT_ALIGN) readonly restrict buffer Elements { ELEMENT_BITS v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer Slots { int64_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer Ticket { uint drawn; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Out { uint64_t bits; };

// One call: the input (16-byte aligned) as vectors and as elements, the slots ((DIGITS + 1) words a
// workgroup, word-major), the ticket (0 between dispatches), the result, and n (under 2^32).
layout(push_constant) uniform Call {
    Vectors vectors;
    Elements elements;
    Slots slots;
    Ticket ticket;
    Out out_;
    uint n;
} call;

#include "exact/digits.glsl"

// The trip the thread sum works on.
uvec4 trip_[kLoadsInFlight];

#include "exact/thread_sum.glsl"
#include "exact/group_digit_sum.glsl"

// Rounds pass every 256 values: with the partial trip and the tail, below 2^9 values of 2^53 between
// carry-saves, so a window total stays below 2^62.
const uint kTripsPerRound = 256u / (uint(kLoadsInFlight) * kLanes);

void add_trip() {
    begin_trip();
    [[unroll]] for (int k = 0; k < kLoadsInFlight; ++k) add_fast(trip_[k]);
    if (!end_trip())
        for (int k = 0; k < kLoadsInFlight; ++k) redo(trip_[k]);  // one copy of the slow path
}

// Element i (one after the whole vectors), loaded as its bits.
void add_tail(uint i) {
#if ELEMENT_BF16
    add_one(uint(call.elements.v[i]) << 16);
#elif ELEMENT_F16
    add_one(uint(call.elements.v[i]));
#else
    add_one(call.elements.v[i]);
#endif
}

// This invocation's share: the grid-stride rounds of whole trips, the last trip's loads past the end
// as zeros (which add nothing), then one of the elements after the whole vectors.
void add_thread_part() {
    const uint invocation = gl_GlobalInvocationID.x;
    const uint invocations = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint vector_count = call.n / kLanes;
    uint i = invocation, trips = 0u;
    for (; i + (kLoadsInFlight - 1) * invocations < vector_count; i += kLoadsInFlight * invocations) {
        [[unroll]] for (int k = 0; k < kLoadsInFlight; ++k) trip_[k] = call.vectors.v[i + k * invocations];
        add_trip();
        if (++trips % kTripsPerRound == 0u) end_round();
    }
    if (i < vector_count) {
        [[unroll]] for (int k = 0; k < kLoadsInFlight; ++k) {
            trip_[k] = uvec4(0u);
            if (i + k * invocations < vector_count) trip_[k] = call.vectors.v[i + k * invocations];
        }
        add_trip();
    }
    if (invocation < call.n - kLanes * vector_count) add_tail(kLanes * vector_count + invocation);
    finish_thread();
}

shared int64_t total[DIGITS + 1];
shared bool drew_last;

// Invocation 0, with the total in `total`: the rounded sum's bits to the result.
void round_total() {
    for (int k = 0; k < DIGITS; ++k) digits[k] = total[k];
    call.out_.bits = round_to_double(uint(total[DIGITS]));
}

// Every loop that holds a subgroup operation has a constant trip count, so that the driver unrolls
// it: lavapipe's compiler loses invocations in such a loop left a loop (and in any loop marked
// dont_unroll). Barriers stay at the top level of main. Invocation d computes word d (a workgroup
// has at least 128 invocations, DIGITS + 1 = 11 words).
void main() {
    add_thread_part();
    subgroup_add_thread_sums();
    barrier();
    const uint workgroups = gl_NumWorkGroups.x, size = gl_WorkGroupSize.x, local = gl_LocalInvocationIndex;
    const int word = int(min(local, uint(DIGITS)));
    const bool combine = workgroups > 1u;  // else nobody to wait for: the columns hold the total
    const int64_t own = workgroup_word(word);
    if (combine && local <= DIGITS) call.slots.v[word * workgroups + gl_WorkGroupID.x] = own;
    // The slot stores of this workgroup's invocations before invocation 0's release.
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    if (local == 0u) {
        bool last = true;
        if (combine) {
            const uint ticket = atomicAdd(call.ticket.drawn, 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
            last = ticket == workgroups - 1u;
            if (last) memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
        }
        drew_last = last;
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    if (!drew_last) return;

    // The last workgroup: each word summed (the specials OR-ed) over the workgroups, by invocations,
    // into the subgroup columns.
    if (combine) {
        [[unroll]] for (int d = 0; d <= DIGITS; ++d) {
            int64_t s = 0l;
            for (uint g = local; g < workgroups; g += size) s = d < DIGITS ? s + call.slots.v[d * workgroups + g] : s | call.slots.v[d * workgroups + g];
            s = d < DIGITS ? subgroupAdd(s) : int64_t(subgroupOr(uint(s)));
            if (gl_SubgroupInvocationID == 0u) columns[d * int(kMaxSubgroups) + int(gl_SubgroupID)] = s;
        }
    }
    barrier();
    const int64_t summed = workgroup_word(word);
    if (local <= DIGITS) total[word] = summed;
    barrier();
    if (local == 0u) {
        round_total();
        if (combine) atomicStore(call.ticket.drawn, 0u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    }
}
