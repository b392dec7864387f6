// Subgroup and workgroup level of vulkan/exact, the GLSL twin of cuda/primitives/warp_digit_sum.cuh
// and block_digit_sum.cuh: invocations' exact totals brought together as integers. Each subgroup
// owns a column of DIGITS + 1 words in shared memory (the last word its specials); its invocations'
// terms go in by subgroupAdd: at once where they share a position (the usual case, a subgroup's
// windows alike), else cut into digit pieces, one subgroupAdd a digit; the invocations' digits, where
// any used them, one subgroupAdd a digit. Then invocation d sums word d over the columns. The rule:
// whole-subgroup code (every invocation of a subgroup calls it), integer sums only, every sum below
// 2^63: a term below 2^57, a piece or a normalized digit below 2^33, a workgroup's word below 2^50.
// The including shader sets kMaxSubgroups (spec constant 2).

shared int64_t columns[(DIGITS + 1) * kMaxSubgroups];

int64_t column_word(int d, uint subgroup) { return columns[d * int(kMaxSubgroups) + int(subgroup)]; }
void add_to_column(int d, int64_t s) {
    if (d < DIGITS) columns[d * int(kMaxSubgroups) + int(gl_SubgroupID)] += s;
}

// The subgroup's sum of value 2^p (p counted from the unit; value 0 where an invocation has none, its
// p then ignored) into the subgroup's column.
void subgroup_add_fixed(int64_t value, int p) {
    const int lowest = subgroupMin(value != 0l ? p : 0x7fffffff), highest = subgroupMax(value != 0l ? p : -1);
    if (highest < 0) return;
    if (lowest == highest) {
        const int64_t s = subgroupAdd(value);  // a term below 2^50 times at most 128 invocations
        if (gl_SubgroupInvocationID == 0u && s != 0l) {
            const int k = highest / kDigitBits;
            [[unroll]] for (int j = 0; j < 3; ++j) add_to_column(k + j, digit_piece(s, highest, k + j));
        }
        return;
    }
    const int first = lowest / kDigitBits, last = highest / kDigitBits + 2;
    [[unroll]] for (int d = 0; d < DIGITS; ++d) {
        if (d < first || d > last) continue;  // the same in every invocation
        const int64_t s = subgroupAdd(value != 0l ? digit_piece(value, p, d) : 0l);
        if (gl_SubgroupInvocationID == 0u) add_to_column(d, s);
    }
}

// Every invocation's finished thread sum (thread_sum.glsl) into its subgroup's column.
void subgroup_add_thread_sums() {
    if (gl_SubgroupInvocationID == 0u)
        for (int d = 0; d <= DIGITS; ++d) columns[d * int(kMaxSubgroups) + int(gl_SubgroupID)] = 0l;
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (int j = 0; j < kTerms; ++j) subgroup_add_fixed(thread_term(j), thread_lsb() + term_shift(j) - UNIT_EXPONENT);
    if (subgroupOr(uint(digits_used)) != 0u) {
        [[unroll]] for (int d = 0; d < DIGITS; ++d) {
            const int64_t s = subgroupAdd(digits_used ? digits[d] : 0l);
            if (gl_SubgroupInvocationID == 0u) add_to_column(d, s);
        }
    }
    const uint specials = subgroupOr(specials_);
    if (gl_SubgroupInvocationID == 0u) columns[DIGITS * int(kMaxSubgroups) + int(gl_SubgroupID)] = int64_t(specials);
}

// Word d (a digit, or at DIGITS the specials) of the sum of the workgroup's columns, once every
// subgroup's are in (after a barrier).
int64_t workgroup_word(int d) {
    int64_t s = 0l;
    for (uint g = 0u; g < gl_NumSubgroups; ++g) s = d < DIGITS ? s + column_word(d, g) : s | column_word(d, g);
    return s;
}
