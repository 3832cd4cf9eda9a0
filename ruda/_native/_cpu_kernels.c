/* The CPU's Philox4x32-10 stream in C, and fused word -> value fillers for ruda.random.
 *
 * Every function writes into a caller's writable C-contiguous buffer (a numpy.empty array or a
 * bytearray) through the buffer protocol, so the module needs only the CPython C API. The value
 * rules are exactly those of ruda/random/_words.py (integer steps and exact float steps only);
 * the transcendental steps of Box-Muller stay in NumPy so results are bit-identical to the
 * NumPy path. Positions are Python ints: a block counter is taken mod 2**128 and a word position
 * (4 * block + lane) mod 2**130, so negative or huge ints wrap as the Python kernel's do.
 *
 *   philox4x32(out, key0, key1, counter, n_blocks)   4*n_blocks uint32 words of blocks
 *                                                    counter.. (counter: int or 4 words)
 *   words(out, key0, key1, pos, n)                   n uint32 words from word position pos
 *   uniform_f64(out, key0, key1, pos, n)             ((w0 >> 5) * 2**26 + (w1 >> 6)) / 2**53
 *   uniform_f32(out, key0, key1, pos, n)             (w >> 8) / 2**24
 *   normal_parts_f64(a, t, key0, key1, pos, m, tau)  a = -u1, t = u2 * tau for m pairs
 *   normal_parts_f32(a, t, key0, key1, pos, m, tau)  the same in float32 (one word per uniform)
 *   bounded_u64(out, key0, key1, pos, n, r, base)    base + ((x * r) >> 64) mod 2**64, with
 *                                                    x = (w0 << 32) | w1, 1 <= r <= 2**64
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define M0 0xD2511F53u
#define M1 0xCD9E8D57u
#define W0 0x9E3779B9u
#define W1 0xBB67AE85u
#define BATCH 64 /* blocks per pass: SoA lanes the compiler vectorises */

/* Runtime dispatch to the widest vector unit where GCC and the platform support ifuncs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CLONES
#endif

typedef struct {
    uint32_t k0, k1;
    uint64_t lo, hi; /* the next block's 128-bit counter */
} Stream;

/* nb <= BATCH blocks of the stream into w[4 * nb] (word 4*i + lane); advances the counter. */
CLONES static void
gen_batch(Stream *s, uint32_t *w, int nb)
{
    /* Lanes in 64-bit slots: (x & 0xFFFFFFFF) * M is the vector unit's 32x32->64 multiply;
     * the slots' upper halves may hold garbage, which only ever reaches upper halves. */
    uint64_t c0[BATCH], c1[BATCH], c2[BATCH], c3[BATCH];
    int nv = (nb + 7) & ~7; /* whole vectors of lanes: a small draw computes few blocks */
    for (int i = 0; i < nv; i++) {
        uint64_t l = s->lo + (uint64_t)i;
        uint64_t h = s->hi + (l < s->lo); /* the carry into the high 64 bits */
        c0[i] = l & 0xFFFFFFFFu;
        c1[i] = l >> 32;
        c2[i] = h & 0xFFFFFFFFu;
        c3[i] = h >> 32;
    }
    uint64_t k0 = s->k0, k1 = s->k1;
    for (int r = 0; r < 10; r++) {
#pragma GCC unroll 1 /* keep the lane loop a loop: the vectoriser takes it, not the unroller */
        for (int i = 0; i < nv; i++) { /* lanes past nb are computed and unused */
            uint64_t p0 = (c0[i] & 0xFFFFFFFFu) * M0;
            uint64_t p1 = (c2[i] & 0xFFFFFFFFu) * M1;
            uint64_t n0 = (p1 >> 32) ^ c1[i] ^ k0;
            uint64_t n2 = (p0 >> 32) ^ c3[i] ^ k1;
            c1[i] = p1;
            c3[i] = p0;
            c0[i] = n0;
            c2[i] = n2;
        }
        k0 = (k0 + W0) & 0xFFFFFFFFu;
        k1 = (k1 + W1) & 0xFFFFFFFFu;
    }
    for (int i = 0; i < nb; i++) {
        w[4 * i] = (uint32_t)c0[i];
        w[4 * i + 1] = (uint32_t)c1[i];
        w[4 * i + 2] = (uint32_t)c2[i];
        w[4 * i + 3] = (uint32_t)c3[i];
    }
    uint64_t l = s->lo + (uint64_t)nb;
    s->hi += (l < s->lo);
    s->lo = l;
}

/* -- argument handling ------------------------------------------------------------------- */

/* The low 64 bits of (x >> shift) for any Python int x (two's complement, as Python's >>). */
static int
limb(PyObject *x, int shift, uint64_t *out)
{
    if (shift == 0) {
        *out = PyLong_AsUnsignedLongLongMask(x);
        return (*out == (uint64_t)-1 && PyErr_Occurred()) ? -1 : 0;
    }
    PyObject *sh = PyLong_FromLong(shift);
    if (sh == NULL)
        return -1;
    PyObject *y = PyNumber_Rshift(x, sh);
    Py_DECREF(sh);
    if (y == NULL)
        return -1;
    *out = PyLong_AsUnsignedLongLongMask(y);
    Py_DECREF(y);
    return (*out == (uint64_t)-1 && PyErr_Occurred()) ? -1 : 0;
}

static int
is_small(PyObject *x) /* 0 <= x < 2**64: the high limbs are zero */
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (v == -1 && PyErr_Occurred())
        PyErr_Clear();
    return overflow == 0 && v >= 0;
}

/* The stream at word position pos (mod 2**130): block counter pos >> 2, first lane pos & 3. */
static int
stream_at(PyObject *k0, PyObject *k1, PyObject *pos, Stream *s, int *lane)
{
    uint64_t lo, mid = 0, top = 0, a, b;
    if (!PyLong_Check(pos)) {
        PyErr_SetString(PyExc_TypeError, "ruda._cpu_kernels: position must be an int");
        return -1;
    }
    if (limb(k0, 0, &a) < 0 || limb(k1, 0, &b) < 0 || limb(pos, 0, &lo) < 0)
        return -1;
    if (!is_small(pos) && (limb(pos, 64, &mid) < 0 || limb(pos, 128, &top) < 0))
        return -1;
    s->k0 = (uint32_t)a;
    s->k1 = (uint32_t)b;
    s->lo = (lo >> 2) | (mid << 62);
    s->hi = (mid >> 2) | ((top & 3) << 62);
    *lane = (int)(lo & 3);
    return 0;
}

/* A writable C-contiguous buffer of at least nbytes. */
static int
get_out(PyObject *obj, Py_buffer *view, Py_ssize_t nbytes)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->len < nbytes) {
        PyErr_Format(PyExc_ValueError, "ruda._cpu_kernels: out has %zd bytes, needs %zd",
                     view->len, nbytes);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static int
count_arg(PyObject *x, Py_ssize_t limit, Py_ssize_t *n)
{
    *n = PyNumber_AsSsize_t(x, PyExc_OverflowError);
    if (*n == -1 && PyErr_Occurred())
        return -1;
    if (*n < 0 || *n > limit) {
        PyErr_SetString(PyExc_ValueError, "ruda._cpu_kernels: count out of range");
        return -1;
    }
    return 0;
}

/* -- the stream driver --------------------------------------------------------------------- */

/* Calls `emit(ctx, words, nwords, done)` over successive batches until `need` values of `per`
 * words each are produced; the first batch starts at `lane`. Values never straddle a batch
 * because per divides 4 and lane is a multiple of per. */
typedef void (*Emit)(void *ctx, const uint32_t *w, Py_ssize_t nvalues, Py_ssize_t done);

static void
drive(Stream *s, int lane, int per, Py_ssize_t need, Emit emit, void *ctx)
{
    uint32_t buf[4 * BATCH];
    Py_ssize_t done = 0;
    while (done < need) {
        Py_ssize_t words_left = (need - done) * per + lane;
        Py_ssize_t blocks = (words_left + 3) / 4;
        int nb = blocks < BATCH ? (int)blocks : BATCH;
        gen_batch(s, buf, nb);
        Py_ssize_t m = (4 * nb - lane) / per;
        if (m > need - done)
            m = need - done;
        emit(ctx, buf + lane, m, done);
        done += m;
        lane = 0;
    }
}

typedef struct {
    char *a, *b;
    double tau;
    float tauf;
    uint64_t r, base;
    int full; /* r == 2**64 */
} Ctx;

static void
emit_words(void *c, const uint32_t *w, Py_ssize_t m, Py_ssize_t done)
{
    memcpy(((Ctx *)c)->a + 4 * done, w, (size_t)m * 4);
}

static void
emit_f64(void *c, const uint32_t *w, Py_ssize_t m, Py_ssize_t done)
{
    double v[2 * BATCH];
    for (Py_ssize_t i = 0; i < m; i++) {
        int64_t bits = ((int64_t)(w[2 * i] >> 5) << 26) | (int64_t)(w[2 * i + 1] >> 6);
        v[i] = (double)bits * 0x1p-53; /* bits < 2**53: both steps exact */
    }
    memcpy(((Ctx *)c)->a + 8 * done, v, (size_t)m * 8);
}

static void
emit_f32(void *c, const uint32_t *w, Py_ssize_t m, Py_ssize_t done)
{
    float v[4 * BATCH];
    for (Py_ssize_t i = 0; i < m; i++)
        v[i] = (float)(int32_t)(w[i] >> 8) * 0x1p-24f; /* < 2**24: exact */
    memcpy(((Ctx *)c)->a + 4 * done, v, (size_t)m * 4);
}

static void
emit_normal_f64(void *c, const uint32_t *w, Py_ssize_t m, Py_ssize_t done)
{
    Ctx *ctx = (Ctx *)c;
    double a[BATCH], t[BATCH];
    for (Py_ssize_t i = 0; i < m; i++) {
        const uint32_t *q = w + 4 * i;
        int64_t b1 = ((int64_t)(q[0] >> 5) << 26) | (int64_t)(q[1] >> 6);
        int64_t b2 = ((int64_t)(q[2] >> 5) << 26) | (int64_t)(q[3] >> 6);
        a[i] = -((double)b1 * 0x1p-53);
        t[i] = ((double)b2 * 0x1p-53) * ctx->tau;
    }
    memcpy(ctx->a + 8 * done, a, (size_t)m * 8);
    memcpy(ctx->b + 8 * done, t, (size_t)m * 8);
}

static void
emit_normal_f32(void *c, const uint32_t *w, Py_ssize_t m, Py_ssize_t done)
{
    Ctx *ctx = (Ctx *)c;
    float a[2 * BATCH], t[2 * BATCH];
    for (Py_ssize_t i = 0; i < m; i++) {
        a[i] = -((float)(int32_t)(w[2 * i] >> 8) * 0x1p-24f);
        t[i] = ((float)(int32_t)(w[2 * i + 1] >> 8) * 0x1p-24f) * ctx->tauf;
    }
    memcpy(ctx->a + 4 * done, a, (size_t)m * 4);
    memcpy(ctx->b + 4 * done, t, (size_t)m * 4);
}

static void
emit_bounded(void *c, const uint32_t *w, Py_ssize_t m, Py_ssize_t done)
{
    Ctx *ctx = (Ctx *)c;
    uint64_t v[2 * BATCH];
    for (Py_ssize_t i = 0; i < m; i++) {
        uint64_t x = ((uint64_t)w[2 * i] << 32) | w[2 * i + 1];
        uint64_t hi = ctx->full ? x : (uint64_t)(((unsigned __int128)x * ctx->r) >> 64);
        v[i] = ctx->base + hi;
    }
    memcpy(ctx->a + 8 * done, v, (size_t)m * 8);
}

/* -- module functions ---------------------------------------------------------------------- */

/* Shared body: out buffer(s), key, pos, count; `per` words per value of `size` bytes. */
static PyObject *
run(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected, int nout, int per,
    Py_ssize_t size, Emit emit, Ctx *ctx, const char *name)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "ruda._cpu_kernels.%s takes %zd arguments", name,
                     expected);
        return NULL;
    }
    Stream s;
    int lane;
    Py_ssize_t n;
    Py_buffer va, vb;
    if (stream_at(args[nout], args[nout + 1], args[nout + 2], &s, &lane) < 0 ||
        count_arg(args[nout + 3], PY_SSIZE_T_MAX / 16, &n) < 0)
        return NULL;
    if (lane % per != 0) {
        PyErr_Format(PyExc_ValueError, "ruda._cpu_kernels.%s: position not a multiple of %d",
                     name, per);
        return NULL;
    }
    if (get_out(args[0], &va, n * size) < 0)
        return NULL;
    if (nout == 2 && get_out(args[1], &vb, n * size) < 0) {
        PyBuffer_Release(&va);
        return NULL;
    }
    ctx->a = (char *)va.buf;
    ctx->b = nout == 2 ? (char *)vb.buf : NULL;
    if (n > 0) {
        Py_BEGIN_ALLOW_THREADS;
        drive(&s, lane, per, n, emit, ctx);
        Py_END_ALLOW_THREADS;
    }
    PyBuffer_Release(&va);
    if (nout == 2)
        PyBuffer_Release(&vb);
    Py_RETURN_NONE;
}

static PyObject *
py_philox4x32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "ruda._cpu_kernels.philox4x32(out, key0, key1, counter, n_blocks)");
        return NULL;
    }
    PyObject *counter = args[3], *pos;
    if (PyTuple_Check(counter) || PyList_Check(counter)) { /* four 32-bit lanes, low first */
        PyObject *seq = PySequence_Fast(counter, "counter");
        if (seq == NULL)
            return NULL;
        if (PySequence_Fast_GET_SIZE(seq) != 4) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "ruda._cpu_kernels.philox4x32: counter "
                                              "must be an int or four 32-bit words");
            return NULL;
        }
        uint64_t lanes[4];
        for (int i = 0; i < 4; i++) {
            if (limb(PySequence_Fast_GET_ITEM(seq, i), 0, &lanes[i]) < 0) {
                Py_DECREF(seq);
                return NULL;
            }
        }
        Py_DECREF(seq);
        unsigned char bytes[17] = {0};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                bytes[4 * i + j] = (unsigned char)((lanes[i] & 0xFFFFFFFFu) >> (8 * j));
        counter = _PyLong_FromByteArray(bytes, 17, 1, 0);
    }
    else if (!PyLong_Check(counter)) {
        PyErr_SetString(PyExc_TypeError, "ruda._cpu_kernels.philox4x32: counter must be an int");
        return NULL;
    }
    else {
        Py_INCREF(counter);
    }
    if (counter == NULL)
        return NULL;
    /* The word position of the block: 4 * counter (the mod 2**130 wrap is in stream_at). */
    PyObject *two = PyLong_FromLong(2);
    pos = two == NULL ? NULL : PyNumber_Lshift(counter, two);
    Py_XDECREF(two);
    Py_DECREF(counter);
    if (pos == NULL)
        return NULL;
    Py_ssize_t nb;
    if (count_arg(args[4], PY_SSIZE_T_MAX / 16, &nb) < 0) {
        Py_DECREF(pos);
        return NULL;
    }
    PyObject *nw = PyLong_FromSsize_t(4 * nb);
    if (nw == NULL) {
        Py_DECREF(pos);
        return NULL;
    }
    PyObject *sub[5] = {args[0], args[1], args[2], pos, nw};
    Ctx ctx = {0};
    PyObject *res = run(sub, 5, 5, 1, 1, 4, emit_words, &ctx, "philox4x32");
    Py_DECREF(pos);
    Py_DECREF(nw);
    return res;
}

static PyObject *
py_words(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Ctx ctx = {0};
    return run(args, nargs, 5, 1, 1, 4, emit_words, &ctx, "words");
}

static PyObject *
py_uniform_f64(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Ctx ctx = {0};
    return run(args, nargs, 5, 1, 2, 8, emit_f64, &ctx, "uniform_f64");
}

static PyObject *
py_uniform_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Ctx ctx = {0};
    return run(args, nargs, 5, 1, 1, 4, emit_f32, &ctx, "uniform_f32");
}

static PyObject *
py_normal_parts_f64(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Ctx ctx = {0};
    if (nargs == 7 && (ctx.tau = PyFloat_AsDouble(args[6])) == -1.0 && PyErr_Occurred())
        return NULL;
    return run(args, nargs == 7 ? 6 : -1, 6, 2, 4, 8, emit_normal_f64, &ctx,
               "normal_parts_f64");
}

static PyObject *
py_normal_parts_f32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Ctx ctx = {0};
    if (nargs == 7) {
        double tau = PyFloat_AsDouble(args[6]);
        if (tau == -1.0 && PyErr_Occurred())
            return NULL;
        ctx.tauf = (float)tau;
    }
    return run(args, nargs == 7 ? 6 : -1, 6, 2, 2, 4, emit_normal_f32, &ctx,
               "normal_parts_f32");
}

static PyObject *
py_bounded_u64(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Ctx ctx = {0};
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "ruda._cpu_kernels.bounded_u64(out, key0, key1, pos, n, r, base)");
        return NULL;
    }
    uint64_t r;
    if (limb(args[5], 0, &r) < 0 || limb(args[6], 0, &ctx.base) < 0)
        return NULL;
    uint64_t top = 0;
    if (!is_small(args[5]) && limb(args[5], 64, &top) < 0)
        return NULL;
    if (r == 0 || top != 0) { /* r in [1, 2**64]: 2**64 is the one with a high limb */
        if (top != 1 || r != 0) {
            PyErr_SetString(PyExc_ValueError, "ruda._cpu_kernels.bounded_u64: r out of range");
            return NULL;
        }
        ctx.full = 1;
    }
    ctx.r = r;
    return run(args, 5, 5, 1, 2, 8, emit_bounded, &ctx, "bounded_u64");
}

static PyMethodDef methods[] = {
    {"philox4x32", (PyCFunction)(void (*)(void))py_philox4x32, METH_FASTCALL,
     "philox4x32(out, key0, key1, counter, n_blocks): the 4*n_blocks words of blocks counter.."},
    {"words", (PyCFunction)(void (*)(void))py_words, METH_FASTCALL,
     "words(out, key0, key1, pos, n): n uint32 words from word position pos"},
    {"uniform_f64", (PyCFunction)(void (*)(void))py_uniform_f64, METH_FASTCALL,
     "uniform_f64(out, key0, key1, pos, n): float64 in [0, 1) from word pairs"},
    {"uniform_f32", (PyCFunction)(void (*)(void))py_uniform_f32, METH_FASTCALL,
     "uniform_f32(out, key0, key1, pos, n): float32 in [0, 1) from single words"},
    {"normal_parts_f64", (PyCFunction)(void (*)(void))py_normal_parts_f64, METH_FASTCALL,
     "normal_parts_f64(a, t, key0, key1, pos, m, tau): a = -u1, t = u2 * tau"},
    {"normal_parts_f32", (PyCFunction)(void (*)(void))py_normal_parts_f32, METH_FASTCALL,
     "normal_parts_f32(a, t, key0, key1, pos, m, tau): a = -u1, t = u2 * tau (float32)"},
    {"bounded_u64", (PyCFunction)(void (*)(void))py_bounded_u64, METH_FASTCALL,
     "bounded_u64(out, key0, key1, pos, n, r, base): base + mulhi(x, r) mod 2**64"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ruda._native._cpu_kernels",
                                    "Philox4x32-10 and fused random fillers for the CPU.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC
PyInit__cpu_kernels(void)
{
    return PyModule_Create(&module);
}
