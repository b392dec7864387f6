// Work-group level of opencl/exact (cuda/primitives/block_digit_sum.cuh's layer): the group's exact
// total as digits, from its items' totals. The group finds the digits its items reach (local atomic
// min and max), then sums them four at a time, each item giving its part of each (item_digit: its
// terms' pieces and, if it used them, its digits), by a tree in local memory: OpenCL 1.2 has no
// sub-group sums to rely on (NVIDIA's driver lacks cl_khr_subgroups). Items of a group mostly share
// a window, so a group of floats sums 4 to 8 digits: two trees. The rule: integer sums only.

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
