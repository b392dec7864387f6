// Work-group level of opencl/exact (cuda/primitives/block_digit_sum.cuh's layer): the group's exact
// total as digits, from its items' totals. The group finds the digits its items reach (local atomic
// min and max), then sums them four at a time, each item giving its part of each (item_digit: its
// terms' pieces and, if it used them, its digits), by a tree in local memory: OpenCL 1.2 has no
// sub-group sums to rely on (NVIDIA's driver lacks cl_khr_subgroups). Items of a group mostly share
// a window, so a group of floats sums 4 to 8 digits: two trees. Before that, a cheaper step: where
// the thread level puts its terms at fixed offsets from p[0] (TERMS_AT_FIXED_OFFSETS) and every item
// of the group has the same p[0] and no digits, the group sums the terms themselves, one tree, and
// item 0 alone cuts the sums into digits; doubles do the same with their terms recast as slices of
// one span (group_terms). The rule: integer sums only.

// The sums of x over the work-group, in every work-item. get_local_size(0) a power of two.
long4 group_sum4(long4 x, local long4* scratch) {
    const uint item = get_local_id(0);
    scratch[item] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = get_local_size(0) / 2; width > 0; width /= 2) {
        if (item < width) scratch[item] += scratch[item + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const long4 total = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read it before scratch is used again
    return total;
}

// What a group's items agree on before their digits are summed: the union of their digit ranges
// and the OR of their specials.
typedef struct {
    int lo, hi;
    uint specials;
} GroupRange;

GroupRange group_range(int lo, int hi, uint specials, local GroupRange* shared) {
    if (get_local_id(0) == 0) {
        shared->lo = DIGITS;
        shared->hi = -1;
        shared->specials = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lo <= hi) {
        atomic_min(&shared->lo, lo);
        atomic_max(&shared->hi, hi);
    }
    if (specials != 0) atomic_or(&shared->specials, specials);
    barrier(CLK_LOCAL_MEM_FENCE);
    const GroupRange range = *shared;
    barrier(CLK_LOCAL_MEM_FENCE);
    return range;
}

#if ITEM_TERMS != 4
#error "group_terms sums an item's terms as one long4"
#endif

// Doubles' terms sit at their own exponents: a group whose items' bits all lie within
// ITEM_TERMS x SLICE_BITS binades recasts each item's terms as ITEM_TERMS slices from the group's
// lowest bit up, at fixed offsets, and sums those. A slice of three terms is below 3 x 2^52: 256
// items' sums stay below 2^62.
#define SLICE_BITS 52
#define MOST_SLICED_ITEMS 256

// Bits [q, q + SLICE_BITS) of |value| 2^p, shifted down by q, with value's sign.
long slice(long value, int p, int q) {
    const ulong magnitude = value < 0 ? 0 - (ulong)value : (ulong)value;
    const int shift = p - q;
    const ulong bits = (shift >= 0 ? (shift < 64 ? magnitude << shift : 0) : (shift > -64 ? magnitude >> -shift : 0)) &
                       ((1UL << SLICE_BITS) - 1);
    return value < 0 ? -(long)bits : (long)bits;
}

// What a group's items agree on before they sum their terms: with TERMS_AT_FIXED_OFFSETS the least
// and greatest p[0] of the items with a nonzero term, else the lowest and (past the) highest bit of
// every nonzero term; the OR of their specials, and whether any item used its digits or has a term
// too large for the group's sum (|value| above LONG_MAX / group size).
typedef struct {
    int p_lo, p_hi;
    uint specials, split;
} GroupTerms;

// The group's total as one ItemTotal, in every item, if its items' terms share their powers of two
// or fit one span of slices (then *shared is 1, *specials the group's OR); else t unchanged,
// *shared 0 (and *specials, at least this item's).
ItemTotal group_terms(ItemTotal t, uint* specials, int* shared, local long4* scratch, local GroupTerms* agree) {
    if (get_local_id(0) == 0) {
        agree->p_lo = INT_MAX;
        agree->p_hi = INT_MIN;
        agree->specials = agree->split = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const long most = LONG_MAX / (long)get_local_size(0);
    int zero = 1, split = t.digits_used, lowest = INT_MAX, highest = INT_MIN;
    for (int j = 0; j < ITEM_TERMS; ++j) {
        zero &= t.value[j] == 0;
        split |= t.value[j] > most || t.value[j] < -most;
        if (t.value[j] == 0) continue;
        const ulong magnitude = t.value[j] < 0 ? 0 - (ulong)t.value[j] : (ulong)t.value[j];
        lowest = min(lowest, t.p[j] + (int)(63 - clz(magnitude & (0 - magnitude))));
        highest = max(highest, t.p[j] + 64 - (int)clz(magnitude));
    }
#if TERMS_AT_FIXED_OFFSETS
    lowest = highest = t.p[0];
#endif
    if (!zero) {
        atomic_min(&agree->p_lo, lowest);
        atomic_max(&agree->p_hi, highest);
    }
    if (split) atomic_or(&agree->split, 1u);
    if (t.specials != 0) atomic_or(&agree->specials, t.specials);
    barrier(CLK_LOCAL_MEM_FENCE);
    const GroupTerms g = *agree;
    barrier(CLK_LOCAL_MEM_FENCE);
    *specials = g.specials;
    const int none = g.p_lo > g.p_hi;  // every term of the group zero
#if TERMS_AT_FIXED_OFFSETS
    *shared = g.split == 0 && g.p_lo >= g.p_hi;  // one p[0], or all terms zero
    if (!*shared) return t;
    if (!none) {  // this item's terms may have been zero at another p[0]: the group's
        const int shift = g.p_lo - t.p[0];
        for (int j = 0; j < ITEM_TERMS; ++j) t.p[j] += shift;
    }
#else
    *shared = g.split == 0 && get_local_size(0) <= MOST_SLICED_ITEMS &&
              (none || g.p_hi - g.p_lo <= ITEM_TERMS * SLICE_BITS);
    if (!*shared) return t;
    ItemTotal sliced;
    for (int k = 0; k < ITEM_TERMS; ++k) {
        sliced.p[k] = none ? 0 : g.p_lo + k * SLICE_BITS;
        sliced.value[k] = 0;
        for (int j = 0; j < ITEM_TERMS; ++j) sliced.value[k] += t.value[j] == 0 ? 0 : slice(t.value[j], t.p[j], sliced.p[k]);
    }
    sliced.digits_used = 0;
    t = sliced;
#endif
    const long4 sum = group_sum4((long4)(t.value[0], t.value[1], t.value[2], t.value[3]), scratch);
    t.value[0] = sum.x;
    t.value[1] = sum.y;
    t.value[2] = sum.z;
    t.value[3] = sum.w;
    t.specials = g.specials;
    return t;
}
