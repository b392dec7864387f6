// Thread level of opencl/exact for float16, as cuda/primitives/thread_half_sum.cuh: every finite
// float16 times 2^24 is an integer below 2^40 (65504 = 2047 x 2^5 the largest, 2^-24 the smallest
// subnormal), so a work-item adds each as a long at lsb -24: no window, no comparison per value. The
// values are converted by vload_half (core OpenCL C: no cl_khr_fp16 needed), exactly, subnormals
// included. A trip with NaN or Inf (one check of each word's exponent bits) is undone and redone
// value by value; those go to the specials and add nothing. Floats' digits format (UNIT_EXPONENT
// -149); the digits are never used.
// An ItemTotal's terms at fixed offsets from p[0] (exact_group.cl): two halves at lsb -24 and -24 + 32.
#define TERMS_AT_FIXED_OFFSETS 1
#define HALF_LSB (-24)
#define VALUES_PER_VECTOR 8
// A round adds below 302 x 2^40 < 2^49: below 2^32 to the low half, 2^17 to the high one.

typedef struct {
    long total, saved, low, high;
    uint special, specials;
} ThreadSum;

void thread_init(ThreadSum* s) {
    s->total = s->saved = s->low = s->high = 0;
    s->special = s->specials = 0;
}

void add_scaled8(ThreadSum* s, float8 f) {
    f *= 0x1p24f;  // exact
    s->total += convert_long(f.s0) + convert_long(f.s1) + convert_long(f.s2) + convert_long(f.s3) +
                convert_long(f.s4) + convert_long(f.s5) + convert_long(f.s6) + convert_long(f.s7);
}

float8 halves(uint4 v) { return vload_half8(0, (const private half*)&v); }

void begin_trip(ThreadSum* s, const uint4* v, int valid) { s->saved = s->total; }

// Bit 15 of a half's (|bits| + 0x0400) is set exactly when its exponent is all ones.
void add_fast(ThreadSum* s, uint4 v) {
    add_scaled8(s, halves(v));
    s->special |= ((v.x & 0x7fff7fffu) + 0x04000400u) | ((v.y & 0x7fff7fffu) + 0x04000400u) |
                  ((v.z & 0x7fff7fffu) + 0x04000400u) | ((v.w & 0x7fff7fffu) + 0x04000400u);
}

int end_trip(ThreadSum* s) {
    const int clean = (s->special & 0x80008000u) == 0;
    s->special = 0;
    if (!clean) s->total = s->saved;
    return clean;
}

void add_half(ThreadSum* s, float x) {
    if (fabs(x) <= 65504.0f) s->total += convert_long(x * 0x1p24f);  // exact
    else s->specials |= float_special(as_uint(x));
}

void redo(ThreadSum* s, long* digits, uint4 v) {
    const float8 f = halves(v);
    add_half(s, f.s0);
    add_half(s, f.s1);
    add_half(s, f.s2);
    add_half(s, f.s3);
    add_half(s, f.s4);
    add_half(s, f.s5);
    add_half(s, f.s6);
    add_half(s, f.s7);
}

void add_one(ThreadSum* s, long* digits, InElement bits) { add_half(s, vload_half(0, (const private half*)&bits)); }

void end_round(ThreadSum* s, long* digits) {
    s->low += s->total & 0xffffffffL;
    s->high += s->total >> 32;
    s->total = 0;
}

ItemTotal thread_finish(ThreadSum* s, long* digits) {
    end_round(s, digits);
    ItemTotal t;
    t.value[0] = s->low;
    t.p[0] = HALF_LSB - UNIT_EXPONENT;
    t.value[1] = s->high;
    t.p[1] = HALF_LSB - UNIT_EXPONENT + 32;
    t.value[2] = t.value[3] = 0;
    t.p[2] = t.p[3] = 0;
    t.specials = s->specials;
    t.digits_used = 0;
    return t;
}
