// Thread level of opencl/exact for doubles, as cuda/primitives/thread_expansion_sum.cuh: a
// floating-point expansion of EXPANSION_TERMS doubles per work-item in registers (ExBLAS's first
// level), each double added by a chain of TwoSums (6 additions each), and the last error must be
// zero for the terms to hold the sum exactly; the OR of its bits decides once per trip, and a trip
// with any nonzero (or NaN, Inf, overflow: a non-finite error) is undone and redone double by
// double: a nonzero last error into the work-item's digits, an overflowing expansion into them and
// restarted, NaN and Inf to the specials. Three terms hold inputs spanning about 106 binades below
// the running sum. Without cl_khr_fp64 there is no expansion: every trip is redone, each double
// into the digits from its bits.
// An ItemTotal's terms at fixed offsets from p[0] (exact_group.cl): each term at its double's own exponent.
#define TERMS_AT_FIXED_OFFSETS 0
#define VALUES_PER_VECTOR 2
#define EXPANSION_TERMS 3
// A double adds at most three pieces to a digit: normalized every 2^20 doubles it adds.
#define DOUBLES_PER_NORMALIZE (1u << 20)

typedef struct {
#ifdef cl_khr_fp64
    double term[EXPANSION_TERMS], saved[EXPANSION_TERMS];
    ulong missed;
#endif
    uint specials, added;
    int digits_used;
} ThreadSum;

void thread_init(ThreadSum* s) {
#ifdef cl_khr_fp64
    for (int j = 0; j < EXPANSION_TERMS; ++j) s->term[j] = s->saved[j] = 0.0;
    s->missed = 0;
#endif
    s->specials = s->added = 0;
    s->digits_used = 0;
}

// A double (by its bits) into the digits.
void add_to_digits(ThreadSum* s, long* digits, ulong bits) {
    if (!s->digits_used)
        for (int k = 0; k < DIGITS; ++k) digits[k] = 0;
    s->digits_used = 1;
    s->specials |= add_double(digits, bits);
    if (++s->added % DOUBLES_PER_NORMALIZE == 0) normalize(digits);
}

#ifdef cl_khr_fp64
// s + e = a + b exactly unless something overflowed (then e is not finite): Knuth's TwoSum.
void two_sum(double a, double b, double* s, double* e) {
    *s = a + b;
    const double b_virtual = *s - a;
    *e = (a - (*s - b_virtual)) + (b - b_virtual);
}

void begin_trip(ThreadSum* s, const uint4* v, int valid) {
    for (int j = 0; j < EXPANSION_TERMS; ++j) s->saved[j] = s->term[j];
}

void add_fast_double(ThreadSum* s, double x) {
    for (int j = 0; j < EXPANSION_TERMS; ++j) two_sum(s->term[j], x, &s->term[j], &x);
    s->missed |= as_ulong(x);
}

void add_fast(ThreadSum* s, uint4 v) {
    add_fast_double(s, as_double(v.xy));
    add_fast_double(s, as_double(v.zw));
}

int end_trip(ThreadSum* s) {
    const int clean = s->missed == 0;
    s->missed = 0;
    if (!clean)
        for (int j = 0; j < EXPANSION_TERMS; ++j) s->term[j] = s->saved[j];
    return clean;
}

void add_double_one(ThreadSum* s, long* digits, double x) {
    if (!(fabs(x) <= DBL_MAX)) {
        s->specials |= add_double(digits, as_ulong(x));  // NaN or Inf: adds nothing
        return;
    }
    double term[EXPANSION_TERMS], lost = x;
    int finite = 1;
    for (int j = 0; j < EXPANSION_TERMS; ++j) {
        two_sum(s->term[j], lost, &term[j], &lost);
        finite &= fabs(term[j]) <= DBL_MAX;
    }
    if (finite && fabs(lost) <= DBL_MAX) {  // exact: the terms and lost add up to the old terms and x
        for (int j = 0; j < EXPANSION_TERMS; ++j) s->term[j] = term[j];
        if (lost != 0.0) add_to_digits(s, digits, as_ulong(lost));
        return;
    }
    // An overflow: the expansion into the digits, x starts the next.
    for (int j = 0; j < EXPANSION_TERMS; ++j) {
        if (s->term[j] != 0.0) add_to_digits(s, digits, as_ulong(s->term[j]));
        s->term[j] = 0.0;
    }
    s->term[0] = x;
}

void redo(ThreadSum* s, long* digits, uint4 v) {
    add_double_one(s, digits, as_double(v.xy));
    add_double_one(s, digits, as_double(v.zw));
}

void add_one(ThreadSum* s, long* digits, InElement bits) { add_double_one(s, digits, as_double(bits)); }
#else
void begin_trip(ThreadSum* s, const uint4* v, int valid) {}
void add_fast(ThreadSum* s, uint4 v) {}
int end_trip(ThreadSum* s) { return 0; }

void redo(ThreadSum* s, long* digits, uint4 v) {
    add_to_digits(s, digits, as_ulong(v.xy));
    add_to_digits(s, digits, as_ulong(v.zw));
}

void add_one(ThreadSum* s, long* digits, InElement bits) { add_to_digits(s, digits, bits); }
#endif

void end_round(ThreadSum* s, long* digits) {}

// The expansion's terms as integers: each double's significand at its exponent.
ItemTotal thread_finish(ThreadSum* s, long* digits) {
    if (s->digits_used) normalize(digits);
    ItemTotal t;
    for (int j = 0; j < ITEM_TERMS; ++j) {
        t.value[j] = 0;
        t.p[j] = 0;
    }
#ifdef cl_khr_fp64
    for (int j = 0; j < EXPANSION_TERMS; ++j) {
        const ulong bits = as_ulong(s->term[j]), biased = (bits >> 52) & 0x7ffUL;
        const long m = (long)((bits & 0xfffffffffffffUL) | (biased != 0 ? 0x10000000000000UL : 0UL));
        t.value[j] = (bits >> 63) != 0 ? -m : m;
        t.p[j] = biased != 0 ? (int)biased - 1 : 0;
    }
#endif
    t.specials = s->specials;
    t.digits_used = s->digits_used;
    return t;
}
