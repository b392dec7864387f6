// The one-launch reduction of vulkan/*, the GLSL twin of cuda/agents/single_pass.cuh: every workgroup
// reduces its even share of the input, writes its partial to its own slot and takes a ticket;
// the workgroup that draws the last ticket combines the slots in workgroup order, writes the sum and
// resets the ticket for the next dispatch. No second dispatch, no float atomics: the partition
// (workgroup count and size, fixed by n and the device) and the combining tree are the same on every
// call, so the same input gives the same bits.
//
// Compiled at build time into one SPIR-V module per combination of:
//   WORKGROUP_REDUCE_SUBGROUP  1: subgroupAdd within each subgroup, then across the subgroups' partials
//                              0: a shared-memory tree (the workgroup size is a power of two)
//   FINISH_ATOMIC              1: the read ceiling: each workgroup adds its partial to *out with one
//                              float atomicAdd (VK_EXT_shader_atomic_float), *out zeroed before the
//                              dispatch; no slots, no ticket, the order of the adds not fixed
//                              0: slots and the last-workgroup ticket, as above
//   ELEMENT_F64                1: the input, and every sum, double (shaderFloat64)
//                              0: float
// Specialization constants: 0 the workgroup size, 1 the 16-byte loads each invocation issues before
// adding the first (vulkan/runtime/vulkan_reduction.hpp sets both).
//
// Memory model (Vulkan's, GL_KHR_memory_scope_semantics), the pattern of cuda/single-pass: per
// workgroup one invocation stores the slot and takes the ticket with a release atomicAdd at
// queue-family scope; only the invocation that draws the last ticket adds an acquire fence, and a
// workgroup-scope control barrier over buffer and shared storage hands what it acquired, and whether
// it drew last, to the rest of its workgroup. The slots are `coherent`, so each slot store is made
// available and each slot load made visible at queue-family scope, and the chain store -> release ->
// (the ticket's RMWs) -> acquire -> barrier -> load orders them on any conforming implementation.
// Device-scope synchronization per workgroup: one release atomic on one invocation, nothing on the
// others; an acquire fence in the last workgroup only.
#version 460
#pragma use_vulkan_memory_model
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#if WORKGROUP_REDUCE_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#if FINISH_ATOMIC
#extension GL_EXT_shader_atomic_float : require
#if ELEMENT_F64
#error "the read ceiling adds floats: one float atomicAdd per workgroup"
#endif
#endif

// real: the element and sum type; real_vector: 16 bytes of them, kLanes lanes; add_lanes(s, v)
// adds v's lanes to s in order.
#if ELEMENT_F64
#define real double
#define real_vector dvec2
#define REAL_ALIGN 8
const uint kLanes = 2;
real add_lanes(real s, real_vector v) { return s + v.x + v.y; }
#else
#define real float
#define real_vector vec4
#define REAL_ALIGN 4
const uint kLanes = 4;
real add_lanes(real s, real_vector v) { return s + v.x + v.y + v.z + v.w; }
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kLoadsInFlight = 4;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly restrict buffer Vectors { real_vector v[]; };
layout(buffer_reference, std430, buffer_reference_align = REAL_ALIGN) readonly restrict buffer Floats { real v[]; };
layout(buffer_reference, std430, buffer_reference_align = REAL_ALIGN) coherent buffer Slots { real v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer Ticket { uint drawn; };
layout(buffer_reference, std430, buffer_reference_align = REAL_ALIGN) buffer Out { real sum; };

// One call: the input (256-byte aligned) as vectors and as elements, the workgroups' slots, the
// ticket (0 between dispatches), the result, and n (under 2^32).
layout(push_constant) uniform Call {
    Vectors vectors;
    Floats floats;
    Slots slots;
    Ticket ticket;
    Out out_;
    uint n;
} call;

shared real partials[gl_WorkGroupSize.x];

// A grid-stride walk over vectors [first, vector_count): rounds of kLoadsInFlight 16-byte loads by
// every invocation of the grid, each round's loads all issued before the first is added (one memory
// latency a round, not kLoadsInFlight of them), the last round's loads past the end left out.
real grid_stride_partial(uint first, uint vector_count) {
    const uint invocations = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    real s = 0.0;
    uint i = first + gl_GlobalInvocationID.x;
    for (; i + (kLoadsInFlight - 1) * invocations < vector_count; i += kLoadsInFlight * invocations) {
        real_vector v[kLoadsInFlight];
        [[unroll]] for (uint k = 0; k < kLoadsInFlight; ++k) v[k] = call.vectors.v[i + k * invocations];
        [[unroll]] for (uint k = 0; k < kLoadsInFlight; ++k) s = add_lanes(s, v[k]);
    }
    if (i < vector_count) {
        // Zeros past the end add nothing: s starts at +0 and never becomes -0 under round-to-nearest.
        real_vector v[kLoadsInFlight];
        [[unroll]] for (uint k = 0; k < kLoadsInFlight; ++k) {
            v[k] = real_vector(0.0);
            if (i + k * invocations < vector_count) v[k] = call.vectors.v[i + k * invocations];
        }
        [[unroll]] for (uint k = 0; k < kLoadsInFlight; ++k) s = add_lanes(s, v[k]);
    }
    return s;
}

// This invocation's share, CUB's even share as cuda/single-pass's (even_share_agent.cuh): the
// whole tiles (kLoadsInFlight loads of every invocation of a workgroup, one contiguous run) split
// into one contiguous run per workgroup, the first tiles % workgroups taking one more, a tile's
// loads all issued before the first is added; the vectors after the last whole tile by a grid-stride
// walk; then the n % kLanes elements after the whole vectors, one per invocation, loaded first so
// that their latency hides under the vectors'. A workgroup streams its own run of DRAM pages.
// H200, default shapes: 245.5-246.4 us at 2^28 against 254.6-255.9 for a grid-stride walk.
real invocation_partial() {
    const uint invocation = gl_GlobalInvocationID.x;
    const uint size = gl_WorkGroupSize.x, workgroups = gl_NumWorkGroups.x, group = gl_WorkGroupID.x;
    const uint vector_count = call.n / kLanes;
    real tail = 0.0;
    if (invocation < call.n - kLanes * vector_count) tail = call.floats.v[kLanes * vector_count + invocation];
    const uint tile = size * kLoadsInFlight, tiles = vector_count / tile;
    const uint share = tiles / workgroups, extra = tiles % workgroups;
    const uint first = (group * share + min(group, extra)) * tile + gl_LocalInvocationID.x;
    const uint end = first + (share + (group < extra ? 1u : 0u)) * tile;
    real s = 0.0;
    for (uint i = first; i < end; i += tile) {
        real_vector v[kLoadsInFlight];
        [[unroll]] for (uint k = 0; k < kLoadsInFlight; ++k) v[k] = call.vectors.v[i + k * size];
        [[unroll]] for (uint k = 0; k < kLoadsInFlight; ++k) s = add_lanes(s, v[k]);
    }
    return s + grid_stride_partial(tiles * tile, vector_count) + tail;
}

// The workgroup's sum of x, in every invocation; every invocation must call it. It begins with a
// barrier, so partials[] may be reused from one call to the next.
real workgroup_sum(real x) {
    barrier();
#if WORKGROUP_REDUCE_SUBGROUP
    const real subgroup_sum = subgroupAdd(x);
    if (gl_SubgroupInvocationID == 0) partials[gl_SubgroupID] = subgroup_sum;
    barrier();
    // Every subgroup combines the subgroups' partials alike: subgroup operations stay in uniform
    // control flow, and every invocation holds the sum.
    real s = 0.0;
    for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize) s += partials[k];
    return subgroupAdd(s);
#else
    const uint local = gl_LocalInvocationIndex;
    partials[local] = x;
    barrier();
    for (uint half_size = gl_WorkGroupSize.x / 2; half_size > 0; half_size /= 2) {
        if (local < half_size) partials[local] += partials[local + half_size];
        barrier();
    }
    return partials[0];
#endif
}

#if FINISH_ATOMIC

void main() {
    const real s = workgroup_sum(invocation_partial());
    if (gl_LocalInvocationIndex == 0) atomicAdd(call.out_.sum, s);
}

#else

shared bool drew_last;

// Slots the last workgroup's invocations load before adding the first: one L2 round trip a round
// (cuda/single-pass's kSlotsInFlight): one round up to 2048 workgroups of 256.
const uint kSlotsInFlight = 8;

void main() {
    const real s = workgroup_sum(invocation_partial());
    const uint workgroups = gl_NumWorkGroups.x;
    if (workgroups == 1) {  // nobody to wait for
        if (gl_LocalInvocationIndex == 0) call.out_.sum = s;
        return;
    }
    if (gl_LocalInvocationIndex == 0) {
        call.slots.v[gl_WorkGroupID.x] = s;
        // Release: the slot store above is ordered before the ticket, for whoever acquires it.
        const uint ticket = atomicAdd(call.ticket.drawn, 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        const bool last = ticket == workgroups - 1;
        // Acquire, in the last workgroup only: every slot store is ordered before this invocation's
        // next accesses (the ticket's RMWs extend each workgroup's release sequence).
        if (last) memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
        drew_last = last;
    }
    // Workgroup scope: drew_last to every invocation and, in the last workgroup, the acquire above
    // ordered before the other invocations' slot loads; no device-scope fence on the others.
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    if (!drew_last) return;

    // Invocation t combines slots t, t + W, t + 2W, ... in that order, a round of kSlotsInFlight loads
    // at a time, then the workgroup's fixed tree.
    const uint stride = gl_WorkGroupSize.x;
    real combined = 0.0;
    for (uint w = gl_LocalInvocationIndex; w < workgroups; w += kSlotsInFlight * stride) {
        real v[kSlotsInFlight];
        [[unroll]] for (uint k = 0; k < kSlotsInFlight; ++k) {
            v[k] = 0.0;
            if (w + k * stride < workgroups) v[k] = call.slots.v[w + k * stride];
        }
        [[unroll]] for (uint k = 0; k < kSlotsInFlight; ++k) combined += v[k];
    }
    combined = workgroup_sum(combined);
    if (gl_LocalInvocationIndex == 0) {
        call.out_.sum = combined;
        atomicStore(call.ticket.drawn, 0u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    }
}

#endif
