// Agent level of opencl/exact, as cuda/agents/exact_agent.cuh: a work-item's exact sum of its
// grid-stride part of a device array through its type's thread sum (ThreadSum: begin_trip, add_fast,
// end_trip, redo, add_one, end_round, thread_finish). The partition is reduce.cl's thread_partial's
// (passes of LOADS 16-byte loads, all in flight before the first is added), so both read alike; a
// trip is a pass, through the fast step and, when any value missed it, again through redo. A round
// ends every 256 values. The input starts 256-byte aligned (the runtime's offsets): no head.
#define TRIPS_PER_ROUND (256 / (LOADS * VALUES_PER_VECTOR) > 0 ? 256 / (LOADS * VALUES_PER_VECTOR) : 1)

// v[k] for a k known only at run time, chosen among registers by masks: indexing v by it (or a
// select, which compilers turn back into an index) would place the trip's vectors in off-chip local
// memory on NVIDIA, every load written out and read back.
uint4 vector_at(const uint4* v, int k) {
    uint4 r = 0;
    for (int j = 0; j < LOADS; ++j) r |= v[j] & (uint4)(0u - (uint)(k == j));
    return r;
}

// One trip: the first `valid` of v (LOADS vectors) through the fast step, and again through redo if
// any missed. The redo loop is not unrolled (its body is the slow path): it picks by vector_at.
void add_trip(ThreadSum* s, long* digits, const uint4* v, int valid) {
    begin_trip(s, v, valid);
#pragma unroll  // constant indices keep v in registers (bfloat16's step is long enough to stay a loop)
    for (int k = 0; k < LOADS; ++k)
        if (k < valid) add_fast(s, v[k]);
    if (!end_trip(s))
        for (int k = 0; k < valid; ++k) redo(s, digits, vector_at(v, k));
}

// This work-item's part of in[0..n): its total, and its digits if it used them.
ItemTotal add_thread_part(global const InElement* in, ulong n, long* digits) {
    ThreadSum s;
    thread_init(&s);
    const ulong thread = get_global_id(0), threads = get_global_size(0);
    global const uint4* body = (global const uint4*)in;
    const ulong vectors = n / VALUES_PER_VECTOR;
    ulong i = thread;
    while (i + (LOADS - 1) * threads < vectors) {
        for (int trip = 0; trip < TRIPS_PER_ROUND && i + (LOADS - 1) * threads < vectors; ++trip, i += LOADS * threads) {
            uint4 v[LOADS];
            for (int k = 0; k < LOADS; ++k) v[k] = body[i + k * threads];
            add_trip(&s, digits, v, LOADS);
        }
        end_round(&s, digits);
    }
    for (; i < vectors; i += threads) {
        const uint4 v[LOADS] = {body[i]};  // the rest zero, never added
        add_trip(&s, digits, v, 1);
    }
    if (thread < n % VALUES_PER_VECTOR) add_one(&s, digits, in[VALUES_PER_VECTOR * vectors + thread]);
    return thread_finish(&s, digits);
}
