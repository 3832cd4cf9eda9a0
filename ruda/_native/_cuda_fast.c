/* The cuda backend's small-op hot path in C: one call per op from the Array's operator to
 * cuLaunchKernel.
 *
 * A chain of small elementwise ops on the GPU is bound by the host. ruda/_backends/cuda/ops.py
 * (make_elementwise) and prepared.py (prepare) hold the semantics; this file runs their fast
 * path without entering Python:
 *   - Elementwise(name, arity, fast, first_call, slow, chunk): the implementation of one op.
 *     Operands that are exact CudaArrays of one shape and context, contiguous, with
 *     0 < size <= chunk and no keywords are looked up in `fast` by
 *     (dtypes..., ctx, (size - 1).bit_length()), as ops.py does; a hit launches, a miss calls
 *     first_call(args, key) (which may fill `fast`), anything else calls slow(*args, **kw).
 *   - Prepared(driver, ctx, alloc, dtype, fptr, block, per, arity, name, status=0): one
 *     prepared launch (status: the address of the device's floating-point status words, passed
 *     after the output when nonzero),
 *     an entry of `fast`: allocates the result through the pool callable, fills the CudaArray's
 *     slots and calls cuLaunchKernel with the pointers and the element count, one 8-byte slot
 *     each (the bytes compiler.Program.pack writes), from a buffer on the C stack.
 *   - assign_element(driver, dst, key, src): `a[i, j] = v` (v one element of a's dtype) as
 *     one cuMemcpyDtoDAsync, for Python loops of element assignments; False sends a call
 *     back to the Python path.
 *   - Driver(launch, stream, bind, error_name, error_string, memcpy): the driver entry points as
 *     addresses (resolved by driver.py with ctypes: this file builds without CUDA headers or
 *     libraries) and the current-stream getter: CuPy's C getter as a capsule, or a callable.
 *   - a small-block cache: results of at most CACHE_MAX_BYTES keep their pool block in one of
 *     CACHE_SLOTS slots after the array dies, and the next result of the same size, context and
 *     stream takes it back without a pool call (CuPy's pool allocate and free were a third of a
 *     small op's time). A block is reusable only when nothing but its slot holds it: no array,
 *     view, derived pointer (mem + offset) or exported CuPy array.
 * A CUresult other than 0 raises RuntimeError naming the op and the CUDA error; 201 (no context
 * current in this thread) first calls bind() and retries once, as the Python launcher's
 * per-thread set-up does. The module also exports recording launch and memcpy functions, fake error
 * and stream functions so the tests run without a GPU.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

#ifndef Py_T_OBJECT_EX
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

/* CUresult cuLaunchKernel(CUfunction, gx, gy, gz, bx, by, bz, shmem, CUstream, void **, void **) */
typedef int (*launch_fn)(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
                         unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                         void *stream, void **params, void **extra);
/* CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) */
typedef int (*memcpy_fn)(uint64_t dst, uint64_t src, size_t bytes, void *stream);
/* CUresult cuGetErrorName / cuGetErrorString(CUresult, const char **) */
typedef int (*error_fn)(int code, const char **text);
/* CuPy's cupy.cuda.stream.get_current_stream_ptr: -1 with an exception set on failure */
typedef intptr_t (*stream_fn)(void);

#define STREAM_SIGNATURE "intptr_t (void)"
#define CUDA_ERROR_INVALID_CONTEXT 201
#define MAX_ARITY 2

/* -- CudaArray's slots, read and written at their offsets (set by init) ------------------- */
enum { F_CTX, F_MEM, F_OFFSET, F_SHAPE, F_STRIDES, F_DTYPE, F_SIZE, F_CONTIG, F_READONLY,
       N_FIELDS };
static const char *FIELD_NAMES[N_FIELDS] = {"ctx", "mem", "offset", "shape", "_strides",
                                            "dtype", "size", "_contig", "readonly"};
static Py_ssize_t Off[N_FIELDS];
static PyTypeObject *CudaArrayType = NULL;
static PyTypeObject *ScalarType = NULL;  /* numpy.generic: the scalar operands (set_scalar_type) */
#define SLOT(o, f) (*(PyObject **)((char *)(o) + Off[f]))

static PyObject *StrPtr, *StrIsContiguous, *StrDtype, *Zero, *One;
static unsigned long long TotalLaunches = 0;  /* launches through Prepared, for tests */
/* launches through Prepared of kernels with floating-point status words: the host reads the
 * words only when this moved (ruda/_backends/gpu/fpstatus.py) */
static unsigned long long StatusLaunches = 0;

static PyObject *init(PyObject *mod, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "init(CudaArray): a type");
        return NULL;
    }
    Py_ssize_t off[N_FIELDS];
    for (int i = 0; i < N_FIELDS; i++) {
        PyObject *d = PyObject_GetAttrString(cls, FIELD_NAMES[i]);
        if (d == NULL) return NULL;
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type) &&
                 ((PyDescrObject *)d)->d_type == (PyTypeObject *)cls &&
                 ((PyMemberDescrObject *)d)->d_member->type == Py_T_OBJECT_EX &&
                 !(((PyMemberDescrObject *)d)->d_member->flags & READONLY);
        if (ok) off[i] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "init(CudaArray): %s is not a writable slot of %R",
                         FIELD_NAMES[i], cls);
            return NULL;
        }
    }
    memcpy(Off, off, sizeof(off));
    Py_XSETREF(CudaArrayType, (PyTypeObject *)Py_NewRef(cls));
    Py_RETURN_NONE;
}

/* -- Driver ---------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    launch_fn launch;
    memcpy_fn memcpy_dd;  /* or NULL: element assignments then take the Python path */
    error_fn error_name, error_string;
    stream_fn stream_c;  /* CuPy's C getter, or NULL: then stream_py */
    PyObject *stream;    /* the capsule or the callable */
    PyObject *bind;      /* makes the device's context current in this thread, or None */
} Driver;

static PyTypeObject DriverType;

/* An address from a Python int: NULL with an exception set on failure (0 is NULL too). */
static void *address(PyObject *o)
{
    void *p = PyLong_AsVoidPtr(o);
    if (p == NULL && PyErr_Occurred()) return NULL;
    return p;
}

static PyObject *driver_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    static char *names[] = {"launch", "stream", "bind", "error_name", "error_string", "memcpy",
                            NULL};
    PyObject *launch, *stream, *bind = Py_None, *ename = NULL, *estr = NULL, *mcpy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOO:Driver", names, &launch, &stream, &bind,
                                     &ename, &estr, &mcpy))
        return NULL;
    void *fl = address(launch);
    if (fl == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Driver: launch is 0");
        return NULL;
    }
    void *fn = ename == NULL ? NULL : address(ename);
    void *fs = estr == NULL ? NULL : address(estr);
    void *fm = mcpy == NULL ? NULL : address(mcpy);
    if (PyErr_Occurred()) return NULL;
    stream_fn sc = NULL;
    if (PyCapsule_CheckExact(stream)) {
        sc = (stream_fn)PyCapsule_GetPointer(stream, STREAM_SIGNATURE);
        if (sc == NULL) return NULL;  /* another signature: ValueError from the capsule */
    } else if (!PyCallable_Check(stream)) {
        PyErr_SetString(PyExc_TypeError, "Driver: stream is a capsule '" STREAM_SIGNATURE
                                         "' or a callable");
        return NULL;
    }
    if (bind != Py_None && !PyCallable_Check(bind)) {
        PyErr_SetString(PyExc_TypeError, "Driver: bind is a callable or None");
        return NULL;
    }
    Driver *d = (Driver *)tp->tp_alloc(tp, 0);
    if (d == NULL) return NULL;
    d->launch = (launch_fn)fl;
    d->memcpy_dd = (memcpy_fn)fm;
    d->error_name = (error_fn)fn;
    d->error_string = (error_fn)fs;
    d->stream_c = sc;
    d->stream = Py_NewRef(stream);
    d->bind = Py_NewRef(bind);
    return (PyObject *)d;
}

static int driver_traverse(Driver *d, visitproc visit, void *arg)
{
    Py_VISIT(d->stream);
    Py_VISIT(d->bind);
    return 0;
}

static int driver_clear(Driver *d)
{
    Py_CLEAR(d->stream);
    Py_CLEAR(d->bind);
    return 0;
}

static void driver_dealloc(Driver *d)
{
    PyObject_GC_UnTrack(d);
    driver_clear(d);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

/* The current stream's handle; -1 with an exception set on failure. */
static int current_stream(Driver *d, void **out)
{
    if (d->stream_c != NULL) {
        intptr_t s = d->stream_c();
        if (s == -1 && PyErr_Occurred()) return -1;
        *out = (void *)s;
        return 0;
    }
    PyObject *s = PyObject_CallNoArgs(d->stream);
    if (s == NULL) return -1;
    if (!PyLong_Check(s)) {  /* a cupy.cuda.Stream: its handle */
        Py_SETREF(s, PyObject_GetAttr(s, StrPtr));
        if (s == NULL) return -1;
    }
    void *p = PyLong_AsVoidPtr(s);
    Py_DECREF(s);
    if (p == NULL && PyErr_Occurred()) return -1;
    *out = p;
    return 0;
}

static PyObject *driver_current_stream(PyObject *self, PyObject *unused)
{
    void *s = NULL;
    if (current_stream((Driver *)self, &s) < 0) return NULL;
    return PyLong_FromVoidPtr(s);
}

static PyMethodDef driver_methods[] = {
    {"current_stream", driver_current_stream, METH_NOARGS,
     "The stream handle a launch now would use (as an int)."},
    {NULL}};

static PyObject *call_error(Driver *d, const char *what, const char *call, int code)
{
    const char *ename = NULL, *estr = NULL;
    if (d->error_name == NULL || d->error_name(code, &ename) != 0) ename = NULL;
    if (d->error_string == NULL || d->error_string(code, &estr) != 0) estr = NULL;
    PyErr_Format(PyExc_RuntimeError, "ruda.%s: %s failed with CUDA error %d (%s: %s)", what,
                 call, code, ename ? ename : "unknown", estr ? estr : "no description");
    return NULL;
}

static PyObject *launch_error(Driver *d, PyObject *name, int code)
{
    const char *what = PyUnicode_AsUTF8(name);
    return what == NULL ? NULL : call_error(d, what, "cuLaunchKernel", code);
}

/* -- the small-block cache ------------------------------------------------------------------- */
#define CACHE_SLOTS 64
#define CACHE_MAX_BYTES 65536
typedef struct {
    PyObject *mp;   /* the pool's MemoryPointer, as the array got it */
    PyObject *mem;  /* its memory object (mp.mem): what derived pointers hold too */
    PyObject *ctx;  /* the device's context, compared by identity */
    void *stream;
    long long nbytes;
} Block;
static Block Cache[CACHE_SLOTS];
static int CacheOn = 1, CacheNext = 0;
static unsigned long long CacheHits = 0, CacheMisses = 0;
static PyObject *StrMem;

/* Free when only the slot holds it: the pointer once, its memory twice (the pointer's field and
 * the slot's reference). */
static int block_free(const Block *b) { return Py_REFCNT(b->mp) == 1 && Py_REFCNT(b->mem) == 2; }

static void block_drop(Block *b)
{
    Py_CLEAR(b->mp);
    Py_CLEAR(b->mem);
    Py_CLEAR(b->ctx);
}

/* Give the free blocks back to the pool; the slots of blocks in use stay. */
static int cache_release(void)
{
    int n = 0;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (Cache[i].mp != NULL && block_free(&Cache[i])) block_drop(&Cache[i]), n++;
    return n;
}

/* Remember a fresh block in an empty slot or in place of a free one; a full cache of blocks in
 * use remembers nothing (the block then goes back to the pool when its array dies). */
static void cache_insert(PyObject *mp, PyObject *ctx, void *stream, long long nbytes)
{
    PyObject *mem = PyObject_GetAttr(mp, StrMem);
    if (mem == NULL) {  /* not a CuPy MemoryPointer (another allocator): not cached */
        PyErr_Clear();
        return;
    }
    for (int k = 0; k < CACHE_SLOTS; k++) {
        Block *b = &Cache[(CacheNext + k) % CACHE_SLOTS];
        if (b->mp != NULL && !block_free(b)) continue;
        block_drop(b);
        b->mp = Py_NewRef(mp);
        b->mem = mem;  /* the reference GetAttr gave */
        b->ctx = Py_NewRef(ctx);
        b->stream = stream;
        b->nbytes = nbytes;
        CacheNext = (CacheNext + k + 1) % CACHE_SLOTS;
        return;
    }
    Py_DECREF(mem);
}

/* The result's block: a free cached one of this size, context and stream, else the pool's. */
static PyObject *block_alloc(PyObject *alloc, PyObject *ctx, void *stream, long long nbytes)
{
    int cacheable = CacheOn && nbytes <= CACHE_MAX_BYTES;
    if (cacheable) {
        for (int i = 0; i < CACHE_SLOTS; i++) {
            Block *b = &Cache[i];
            if (b->mp != NULL && b->nbytes == nbytes && b->ctx == ctx && b->stream == stream &&
                block_free(b)) {
                CacheHits++;
                return Py_NewRef(b->mp);
            }
        }
        CacheMisses++;
    }
    PyObject *size = PyLong_FromLongLong(nbytes);
    if (size == NULL) return NULL;
    PyObject *mp = PyObject_CallOneArg(alloc, size);
    if (mp == NULL && PyErr_ExceptionMatches(PyExc_MemoryError) && cache_release() > 0) {
        PyErr_Clear();  /* CuPy's OutOfMemoryError is a MemoryError: retry with the slots freed */
        mp = PyObject_CallOneArg(alloc, size);
    }
    Py_DECREF(size);
    if (mp != NULL && cacheable) cache_insert(mp, ctx, stream, nbytes);
    return mp;
}

static PyObject *cache_set(PyObject *mod, PyObject *on)
{
    int v = PyObject_IsTrue(on);
    if (v < 0) return NULL;
    PyObject *was = PyBool_FromLong(CacheOn);
    CacheOn = v;
    if (!v) cache_release();
    return was;
}

static PyObject *cache_clear(PyObject *mod, PyObject *unused)
{
    return PyLong_FromLong(cache_release());
}

static PyObject *cache_info(PyObject *mod, PyObject *unused)
{
    int held = 0, nfree = 0;
    long long bytes = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (Cache[i].mp == NULL) continue;
        held++, bytes += Cache[i].nbytes;
        nfree += block_free(&Cache[i]);
    }
    return Py_BuildValue("{s:O,s:K,s:K,s:i,s:i,s:L,s:i,s:i}", "on", CacheOn ? Py_True : Py_False,
                         "hits", CacheHits, "misses", CacheMisses, "blocks", held, "free", nfree,
                         "bytes", bytes, "slots", CACHE_SLOTS, "max_bytes", CACHE_MAX_BYTES);
}

/* -- element assignment: a[i, j] = v in a Python loop (scikit-learn's _fill_diagonal) ------- */
static uint64_t long_value(PyObject *o);

/* A memory object's device address (its ptr): 0 with an exception set on failure. */
static uint64_t mem_ptr(PyObject *mem)
{
    PyObject *p = PyObject_GetAttr(mem, StrPtr);
    if (p == NULL) return 0;
    uint64_t v = long_value(p);
    Py_DECREF(p);
    return v;
}

/* After CUDA_ERROR_INVALID_CONTEXT (a thread's first call): make the device's context current
 * in this thread; 1 to retry the call, 0 not to (no binder, or retried already), -1 on error. */
static int bind_context(Driver *d, int rc, int attempt)
{
    if (rc != CUDA_ERROR_INVALID_CONTEXT || attempt > 0 || d->bind == Py_None) return 0;
    PyObject *r = PyObject_CallNoArgs(d->bind);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 1;
}

/* The byte offset of dst[key] from the allocation's start, or -1 unless key is one in-range
 * Python int per dimension (the Python path then takes the call, and raises what it raises). */
static long long element_offset(PyObject *dst, PyObject *key, long long itemsize)
{
    PyObject *shape = SLOT(dst, F_SHAPE), *strides = SLOT(dst, F_STRIDES);
    PyObject *off = SLOT(dst, F_OFFSET);
    if (shape == NULL || strides == NULL || off == NULL || !PyTuple_CheckExact(shape) ||
        !PyTuple_CheckExact(strides))
        return -1;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    if (PyTuple_GET_SIZE(key) != nd || PyTuple_GET_SIZE(strides) != nd) return -1;
    long long at = PyLong_AsLongLong(off);
    for (Py_ssize_t d = 0; d < nd && !PyErr_Occurred(); d++) {
        PyObject *k = PyTuple_GET_ITEM(key, d);
        if (!PyLong_CheckExact(k)) return -1;
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(k, &overflow);
        long long n = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
        long long st = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, d));
        if (overflow || PyErr_Occurred()) break;
        if (i < 0) i += n;
        if (i < 0 || i >= n) return -1;
        at += i * st * itemsize;
    }
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return at;
}

/* assign_element(driver, dst, key, src): dst[key] = src with one cuMemcpyDtoDAsync on the
 * current stream when key is one int per dimension and src a one-element CudaArray of dst's
 * dtype and context not overlapping the target; True when done, False for the Python path. */
static PyObject *assign_element(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyObject_TypeCheck(args[0], &DriverType)) {
        PyErr_SetString(PyExc_TypeError, "assign_element(driver, dst, key, src)");
        return NULL;
    }
    Driver *d = (Driver *)args[0];
    PyObject *dst = args[1], *key = args[2], *src = args[3];
    if (CudaArrayType == NULL || d->memcpy_dd == NULL || Py_TYPE(dst) != CudaArrayType ||
        Py_TYPE(src) != CudaArrayType || !PyTuple_CheckExact(key) ||
        SLOT(src, F_CTX) != SLOT(dst, F_CTX))
        Py_RETURN_FALSE;
    PyObject *size = SLOT(src, F_SIZE), *dt = SLOT(dst, F_DTYPE), *st = SLOT(src, F_DTYPE);
    PyObject *dmem = SLOT(dst, F_MEM), *smem = SLOT(src, F_MEM), *soff = SLOT(src, F_OFFSET);
    if (size == NULL || dt == NULL || st == NULL || dmem == NULL || smem == NULL ||
        soff == NULL || !PyLong_CheckExact(size) || PyLong_AsLongLong(size) != 1) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (dt != st) {
        int eq = PyObject_RichCompareBool(dt, st, Py_EQ);
        if (eq < 0) return NULL;
        if (!eq) Py_RETURN_FALSE;
    }
    PyObject *isz = PyObject_GetAttrString(dt, "itemsize");
    if (isz == NULL) return NULL;
    long long itemsize = PyLong_AsLongLong(isz);
    Py_DECREF(isz);
    long long s0 = PyLong_AsLongLong(soff);
    if (PyErr_Occurred()) return NULL;
    long long at = element_offset(dst, key, itemsize);
    if (at < 0 || (dmem == smem && s0 < at + itemsize && at < s0 + itemsize)) Py_RETURN_FALSE;
    uint64_t dbase = mem_ptr(dmem);
    uint64_t sbase = PyErr_Occurred() ? 0 : mem_ptr(smem);
    void *stream = NULL;
    if (PyErr_Occurred() || current_stream(d, &stream) < 0) return NULL;
    memcpy_fn copy = d->memcpy_dd;
    int rc, again;
    for (int attempt = 0;; attempt++) {
        Py_BEGIN_ALLOW_THREADS
        rc = copy(dbase + (uint64_t)at, sbase + (uint64_t)s0, (size_t)itemsize, stream);
        Py_END_ALLOW_THREADS
        if ((again = bind_context(d, rc, attempt)) <= 0) break;
    }
    if (again < 0) return NULL;
    if (rc != 0) return call_error(d, "Array.__setitem__", "cuMemcpyDtoDAsync", rc);
    Py_RETURN_TRUE;
}

/* -- Prepared ---------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    Driver *driver;
    PyObject *ctx, *alloc, *dtype, *name;
    void *fptr;
    Py_ssize_t itemsize;
    unsigned int block;
    long long per;  /* elements per block: block x items per thread */
    int arity;
    /* a scalar operand passed as the kernel's last parameter: its position among the operands
     * (-1: none), how its value is read (SCALAR_BYTES: its buffer's sbytes bytes; SCALAR_F32:
     * float() as a float32, 16-bit floats; SCALAR_U32: its truth, bool) */
    int scalar, conv;
    Py_ssize_t sbytes;
    uint64_t status;  /* the device's floating-point status words (0: the kernel has none) */
    unsigned long long launches;
    vectorcallfunc vectorcall;
} Prepared;

enum { SCALAR_BYTES = 0, SCALAR_F32 = 1, SCALAR_U32 = 2 };

static PyTypeObject PreparedType;
static PyObject *prepared_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames);

/* A device address as a PyLong attribute value: 0 with an exception set on failure. */
static uint64_t long_value(PyObject *o)
{
    if (o == NULL) return 0;
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return 0;
    return (uint64_t)v;
}

static uint64_t device_ptr(PyObject *x)
{
    PyObject *mem = SLOT(x, F_MEM), *off = SLOT(x, F_OFFSET);
    if (mem == NULL || off == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a CudaArray without mem or offset");
        return 0;
    }
    uint64_t base = mem_ptr(mem);
    if (PyErr_Occurred()) return 0;
    long long o = PyLong_AsLongLong(off);  /* bytes from mem's start */
    if (o == -1 && PyErr_Occurred()) return 0;
    return base + (uint64_t)o;
}

/* The scalar operand s as p's kernel parameter: its bytes in the low end of an 8-byte slot. */
static int scalar_slot(Prepared *p, PyObject *s, uint64_t *slot)
{
    *slot = 0;
    if (p->conv == SCALAR_F32) {
        double d = PyFloat_AsDouble(s);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        float f = (float)d;  /* exact: the value is a 16-bit float */
        memcpy(slot, &f, sizeof f);
        return 0;
    }
    if (p->conv == SCALAR_U32) {
        int t = PyObject_IsTrue(s);
        if (t < 0) return -1;
        *slot = (uint64_t)t;
        return 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(s, &view, PyBUF_SIMPLE) < 0) return -1;
    if (view.len != p->sbytes) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_TypeError, "a prepared launch takes a %zd-byte scalar", p->sbytes);
        return -1;
    }
    memcpy(slot, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return 0;
}

/* Launch p over the n elements of xs (checked by the caller: exact CudaArrays, contiguous, one
 * shape; at p->scalar, if any, the scalar operand); the result is a new contiguous CudaArray of
 * the arrays' shape. */
static PyObject *prepared_run(Prepared *p, PyObject *const *xs, long long n, PyObject *name)
{
    uint64_t vals[MAX_ARITY + 4];
    void *params[MAX_ARITY + 4];
    int k = 0;
    for (int i = 0; i < p->arity; i++) {
        if (i == p->scalar) continue;
        vals[k++] = device_ptr(xs[i]);
        if (PyErr_Occurred()) return NULL;
    }
    uint64_t sval = 0;
    if (p->scalar >= 0 && scalar_slot(p, xs[p->scalar], &sval) < 0) return NULL;
    PyObject *like = xs[p->scalar == 0 ? 1 : 0];  /* an array operand: the result's shape */
    void *stream = NULL;
    if (current_stream(p->driver, &stream) < 0) return NULL;
    PyObject *mem = block_alloc(p->alloc, p->ctx, stream, (n * p->itemsize + 7) & ~7LL);
    if (mem == NULL) return NULL;
    PyObject *y = CudaArrayType->tp_alloc(CudaArrayType, 0);
    if (y == NULL) {
        Py_DECREF(mem);
        return NULL;
    }
    SLOT(y, F_MEM) = mem;  /* y owns mem from here */
    SLOT(y, F_CTX) = Py_NewRef(p->ctx);
    SLOT(y, F_OFFSET) = Py_NewRef(Zero);
    SLOT(y, F_SHAPE) = Py_XNewRef(SLOT(like, F_SHAPE));
    SLOT(y, F_STRIDES) = Py_XNewRef(SLOT(like, F_STRIDES));  /* dense: suits a fresh array */
    SLOT(y, F_DTYPE) = Py_NewRef(p->dtype);
    SLOT(y, F_SIZE) = Py_XNewRef(SLOT(like, F_SIZE));
    SLOT(y, F_CONTIG) = Py_NewRef(Py_True);
    SLOT(y, F_READONLY) = Py_NewRef(Py_False);  /* a fresh result is writeable */
    vals[k] = mem_ptr(mem);
    if (PyErr_Occurred()) {
        Py_DECREF(y);
        return NULL;
    }
    int nv = k + 1;
    if (p->status) vals[nv++] = p->status;  /* the status words: the last buffer */
    vals[nv++] = (uint64_t)n;  /* u32 n in its 8-byte slot: the low 4 bytes, then zeros */
    if (p->scalar >= 0) vals[nv++] = sval;  /* the parameter after n */
    for (int i = 0; i < nv; i++) params[i] = &vals[i];
    unsigned int grid = (unsigned int)((n + p->per - 1) / p->per);
    launch_fn launch = p->driver->launch;
    int rc, again;
    for (int attempt = 0;; attempt++) {
        Py_BEGIN_ALLOW_THREADS
        rc = launch(p->fptr, grid, 1, 1, p->block, 1, 1, 0, stream, params, NULL);
        Py_END_ALLOW_THREADS
        if ((again = bind_context(p->driver, rc, attempt)) <= 0) break;
    }
    if (again < 0) {
        Py_DECREF(y);
        return NULL;
    }
    if (rc != 0) {
        Py_DECREF(y);
        return launch_error(p->driver, name, rc);
    }
    p->launches++;
    TotalLaunches++;
    if (p->status) StatusLaunches++;
    return y;
}

static PyObject *prepared_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    static char *names[] = {"driver", "ctx", "alloc", "dtype", "fptr", "block", "per", "arity",
                            "name", "status", "scalar", "conv", "sbytes", NULL};
    PyObject *driver, *ctx, *alloc, *dtype, *fptr, *name;
    unsigned int block;
    long long per;
    int arity, scalar = -1, conv = SCALAR_BYTES;
    Py_ssize_t sbytes = 0;
    unsigned long long status = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OOOOILiU|Kiin:Prepared", names, &DriverType,
                                     &driver, &ctx, &alloc, &dtype, &fptr, &block, &per, &arity,
                                     &name, &status, &scalar, &conv, &sbytes))
        return NULL;
    if (scalar < -1 || scalar >= arity || (scalar >= 0 && arity < 2) || conv < 0 || conv > 2 ||
        (scalar >= 0 && conv == SCALAR_BYTES && (sbytes < 1 || sbytes > 8))) {
        PyErr_Format(PyExc_ValueError, "Prepared: scalar %d, conv %d, sbytes %zd", scalar, conv,
                     sbytes);
        return NULL;
    }
    if (CudaArrayType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ruda._native._cuda_fast.init(CudaArray) was not called");
        return NULL;
    }
    if (arity < 1 || arity > MAX_ARITY || block == 0 || per < block) {
        PyErr_Format(PyExc_ValueError, "Prepared: arity %d (1 or 2), block %u, per %lld", arity,
                     block, per);
        return NULL;
    }
    PyObject *isz = PyObject_GetAttrString(dtype, "itemsize");
    if (isz == NULL) return NULL;
    Py_ssize_t itemsize = PyLong_AsSsize_t(isz);
    Py_DECREF(isz);
    if (itemsize == -1 && PyErr_Occurred()) return NULL;
    void *f = PyLong_AsVoidPtr(fptr);
    if (f == NULL && PyErr_Occurred()) return NULL;
    if (!PyCallable_Check(alloc)) {
        PyErr_SetString(PyExc_TypeError, "Prepared: alloc is a callable");
        return NULL;
    }
    Prepared *p = (Prepared *)tp->tp_alloc(tp, 0);
    if (p == NULL) return NULL;
    p->driver = (Driver *)Py_NewRef(driver);
    p->ctx = Py_NewRef(ctx);
    p->alloc = Py_NewRef(alloc);
    p->dtype = Py_NewRef(dtype);
    p->name = Py_NewRef(name);
    p->fptr = f;
    p->itemsize = itemsize;
    p->block = block;
    p->per = per;
    p->arity = arity;
    p->scalar = scalar;
    p->conv = conv;
    p->sbytes = sbytes;
    p->status = (uint64_t)status;
    p->vectorcall = prepared_vectorcall;
    return (PyObject *)p;
}

/* p(*xs): the launch for operands that the caller has checked (as ops.py's fast path does);
 * only their type is checked here, so a wrong call raises instead of reading foreign memory. */
static PyObject *prepared_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames)
{
    Prepared *p = (Prepared *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || n != p->arity) {
        PyErr_Format(PyExc_TypeError, "a prepared launch takes %d arrays", p->arity);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i == p->scalar && Py_TYPE(args[i]) == CudaArrayType) {
            PyErr_Format(PyExc_TypeError, "a prepared launch takes a NumPy scalar as operand %d",
                         p->scalar);
            return NULL;
        }
        if (i != p->scalar && Py_TYPE(args[i]) != CudaArrayType) {
            PyErr_Format(PyExc_TypeError, "a prepared launch takes CudaArrays, not %.100s",
                         Py_TYPE(args[i])->tp_name);
            return NULL;
        }
    }
    PyObject *sz = SLOT(args[p->scalar == 0 ? 1 : 0], F_SIZE);
    if (sz == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a CudaArray without size");
        return NULL;
    }
    long long size = PyLong_AsLongLong(sz);
    if (size == -1 && PyErr_Occurred()) return NULL;
    return prepared_run(p, args, size, p->name);
}

static int prepared_traverse(Prepared *p, visitproc visit, void *arg)
{
    Py_VISIT(p->driver);
    Py_VISIT(p->ctx);
    Py_VISIT(p->alloc);
    Py_VISIT(p->dtype);
    return 0;
}

static int prepared_clear(Prepared *p)
{
    Py_CLEAR(p->driver);
    Py_CLEAR(p->ctx);
    Py_CLEAR(p->alloc);
    Py_CLEAR(p->dtype);
    Py_CLEAR(p->name);
    return 0;
}

static void prepared_dealloc(Prepared *p)
{
    PyObject_GC_UnTrack(p);
    prepared_clear(p);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyMemberDef prepared_members[] = {
    {"launches", T_ULONGLONG, offsetof(Prepared, launches), READONLY, "launches made so far"},
    {"block", T_UINT, offsetof(Prepared, block), READONLY, "threads per block"},
    {"per", T_LONGLONG, offsetof(Prepared, per), READONLY, "elements per block"},
    {"arity", T_INT, offsetof(Prepared, arity), READONLY, "operands"},
    {"scalar", T_INT, offsetof(Prepared, scalar), READONLY, "the scalar operand's position, or -1"},
    {"ctx", T_OBJECT_EX, offsetof(Prepared, ctx), READONLY, "the context"},
    {"dtype", T_OBJECT_EX, offsetof(Prepared, dtype), READONLY, "the result's dtype"},
    {"name", T_OBJECT_EX, offsetof(Prepared, name), READONLY, "the kernel's name"},
    {NULL}};

static PyTypeObject PreparedType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruda._native._cuda_fast.Prepared",
    .tp_basicsize = sizeof(Prepared),
    .tp_dealloc = (destructor)prepared_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Prepared, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Prepared(driver, ctx, alloc, dtype, fptr, block, per, arity, name): one "
              "contiguous elementwise kernel's launch, allocating its result.",
    .tp_traverse = (traverseproc)prepared_traverse,
    .tp_clear = (inquiry)prepared_clear,
    .tp_members = prepared_members,
    .tp_new = prepared_new,
};

static PyTypeObject DriverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruda._native._cuda_fast.Driver",
    .tp_basicsize = sizeof(Driver),
    .tp_dealloc = (destructor)driver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Driver(launch, stream, bind=None, error_name=0, error_string=0): cuLaunchKernel "
              "and the error functions by address, the current-stream getter, the thread set-up.",
    .tp_traverse = (traverseproc)driver_traverse,
    .tp_clear = (inquiry)driver_clear,
    .tp_methods = driver_methods,
    .tp_new = driver_new,
};

/* -- Elementwise --------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    PyObject *name, *fast, *first_call, *slow;
    int arity;
    long long chunk;
    vectorcallfunc vectorcall;
} Elementwise;

/* x._contig or x.is_contiguous: 1, 0, or -1 with an exception set. */
static int contiguous(PyObject *x)
{
    PyObject *c = SLOT(x, F_CONTIG);
    if (c == Py_True) return 1;
    if (c == Py_False) return 0;  /* is_contiguous would answer the cached False */
    PyObject *r = PyObject_GetAttr(x, StrIsContiguous);  /* computes and caches _contig */
    if (r == NULL) return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* A NumPy scalar operand (not an array, with a buffer and a dtype): its dtype (new reference),
 * NULL without an exception where it is none. */
static PyObject *scalar_dtype(PyObject *s)
{
    if (ScalarType == NULL || !PyObject_TypeCheck(s, ScalarType)) return NULL;
    PyObject *d = PyObject_GetAttr(s, StrDtype);
    if (d == NULL) PyErr_Clear();
    return d;
}

/* 1 when args take the fast path (n set; *pos the scalar operand's position or -1, *sdt its
 * dtype, a new reference), 0 when not, -1 with an exception set. */
static int fast_operands(Elementwise *e, PyObject *const *args, long long *n, int *pos,
                         PyObject **sdt)
{
    *pos = -1;
    *sdt = NULL;
    PyObject *a = args[0];
    if (e->arity == 2 && Py_TYPE(a) != CudaArrayType && Py_TYPE(args[1]) == CudaArrayType) {
        if ((*sdt = scalar_dtype(a)) == NULL) return 0;
        *pos = 0;
        a = args[1];
    }
    if (Py_TYPE(a) != CudaArrayType) return 0;
    PyObject *ctx = SLOT(a, F_CTX), *size = SLOT(a, F_SIZE);
    if (ctx == NULL || size == NULL || SLOT(a, F_DTYPE) == NULL || !PyLong_CheckExact(size))
        return 0;
    if (e->arity == 2 && *pos < 0 && Py_TYPE(args[1]) != CudaArrayType) {
        if ((*sdt = scalar_dtype(args[1])) == NULL) return 0;
        *pos = 1;
    } else if (e->arity == 2 && *pos < 0) {
        PyObject *b = args[1];
        if (Py_TYPE(b) != CudaArrayType || SLOT(b, F_CTX) != ctx || SLOT(b, F_DTYPE) == NULL)
            return 0;
        PyObject *sa = SLOT(a, F_SHAPE), *sb = SLOT(b, F_SHAPE);
        if (sa == NULL || sb == NULL) return 0;
        if (sa != sb) {
            int eq = PyObject_RichCompareBool(sa, sb, Py_EQ);
            if (eq <= 0) return eq;
        }
    }
    for (int i = 0; i < e->arity; i++) {
        if (i == *pos) continue;
        int c = contiguous(args[i]);
        if (c <= 0) return c;
    }
    int overflow;
    long long m = PyLong_AsLongLongAndOverflow(size, &overflow);
    if (m == -1 && PyErr_Occurred()) return -1;
    if (overflow || m <= 0 || m > e->chunk) return 0;
    *n = m;
    return 1;
}

static PyObject *elementwise_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames)
{
    Elementwise *e = (Elementwise *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    long long n = 0;
    int ok = 0, pos = -1;
    PyObject *sdt = NULL;
    if (kwnames == NULL && nargs == e->arity) {
        ok = fast_operands(e, args, &n, &pos, &sdt);
        if (ok <= 0) Py_CLEAR(sdt);
        if (ok < 0) return NULL;
    }
    if (!ok) return PyObject_Vectorcall(e->slow, args, nargsf, kwnames);
    /* the key of ops.py's fast dict: (dtypes..., ctx, (n - 1).bit_length()), and with a scalar
     * operand its position last */
    int bucket = 0;
    for (unsigned long long v = (unsigned long long)(n - 1); v; v >>= 1) bucket++;
    PyObject *b = PyLong_FromLong(bucket);
    if (b == NULL) {
        Py_XDECREF(sdt);
        return NULL;
    }
    PyObject *key;
    if (pos >= 0) {
        PyObject *arr = args[1 - pos];
        key = PyTuple_Pack(5, pos == 0 ? sdt : SLOT(arr, F_DTYPE),
                           pos == 0 ? SLOT(arr, F_DTYPE) : sdt, SLOT(arr, F_CTX), b,
                           pos == 0 ? Zero : One);
        Py_DECREF(sdt);
    } else if (e->arity == 2) {
        key = PyTuple_Pack(4, SLOT(args[0], F_DTYPE), SLOT(args[1], F_DTYPE),
                           SLOT(args[0], F_CTX), b);
    } else {
        key = PyTuple_Pack(3, SLOT(args[0], F_DTYPE), SLOT(args[0], F_CTX), b);
    }
    Py_DECREF(b);
    if (key == NULL) return NULL;
    PyObject *run = PyDict_GetItemWithError(e->fast, key);  /* borrowed */
    if (run == NULL) {
        if (PyErr_Occurred()) {
            Py_DECREF(key);
            return NULL;
        }
        PyObject *t = PyTuple_New(nargs);
        if (t == NULL) {
            Py_DECREF(key);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
        PyObject *r = PyObject_CallFunctionObjArgs(e->first_call, t, key, NULL);
        Py_DECREF(t);
        Py_DECREF(key);
        return r;
    }
    Py_DECREF(key);
    Py_INCREF(run);  /* the dict may drop it while Python code runs below */
    PyObject *r;
    if (Py_IS_TYPE(run, &PreparedType) && ((Prepared *)run)->arity == e->arity &&
        ((Prepared *)run)->scalar == pos)
        r = prepared_run((Prepared *)run, args, n, e->name);
    else  /* a prepared launcher written in Python (a context that switches devices) */
        r = PyObject_Vectorcall(run, args, (size_t)nargs, NULL);
    Py_DECREF(run);
    return r;
}

static PyObject *elementwise_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    static char *names[] = {"name", "arity", "fast", "first_call", "slow", "chunk", NULL};
    PyObject *name, *fast, *first_call, *slow;
    int arity;
    long long chunk;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "UiO!OOL:Elementwise", names, &name, &arity,
                                     &PyDict_Type, &fast, &first_call, &slow, &chunk))
        return NULL;
    if (CudaArrayType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ruda._native._cuda_fast.init(CudaArray) was not called");
        return NULL;
    }
    if (arity < 1 || arity > MAX_ARITY) {
        PyErr_Format(PyExc_ValueError, "Elementwise: arity %d (1 or 2)", arity);
        return NULL;
    }
    if (!PyCallable_Check(first_call) || !PyCallable_Check(slow)) {
        PyErr_SetString(PyExc_TypeError, "Elementwise: first_call and slow are callables");
        return NULL;
    }
    Elementwise *e = (Elementwise *)tp->tp_alloc(tp, 0);
    if (e == NULL) return NULL;
    e->name = Py_NewRef(name);
    e->fast = Py_NewRef(fast);
    e->first_call = Py_NewRef(first_call);
    e->slow = Py_NewRef(slow);
    e->arity = arity;
    e->chunk = chunk;
    e->vectorcall = elementwise_vectorcall;
    return (PyObject *)e;
}

static int elementwise_traverse(Elementwise *e, visitproc visit, void *arg)
{
    Py_VISIT(e->fast);
    Py_VISIT(e->first_call);
    Py_VISIT(e->slow);
    return 0;
}

static int elementwise_clear(Elementwise *e)
{
    Py_CLEAR(e->name);
    Py_CLEAR(e->fast);
    Py_CLEAR(e->first_call);
    Py_CLEAR(e->slow);
    return 0;
}

static void elementwise_dealloc(Elementwise *e)
{
    PyObject_GC_UnTrack(e);
    elementwise_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static PyObject *elementwise_repr(Elementwise *e)
{
    return PyUnicode_FromFormat("<cuda elementwise %U (C fast path)>", e->name);
}

static PyMemberDef elementwise_members[] = {
    {"__name__", T_OBJECT_EX, offsetof(Elementwise, name), READONLY, "the op's name"},
    {"fast", T_OBJECT_EX, offsetof(Elementwise, fast), READONLY,
     "(dtypes..., ctx, size class) -> prepared launch"},
    {"slow", T_OBJECT_EX, offsetof(Elementwise, slow), READONLY, "the full Python path"},
    {"arity", T_INT, offsetof(Elementwise, arity), READONLY, "operands"},
    {"chunk", T_LONGLONG, offsetof(Elementwise, chunk), READONLY, "elements per launch at most"},
    {NULL}};

static PyTypeObject ElementwiseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruda._native._cuda_fast.Elementwise",
    .tp_basicsize = sizeof(Elementwise),
    .tp_dealloc = (destructor)elementwise_dealloc,
    .tp_repr = (reprfunc)elementwise_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Elementwise, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Elementwise(name, arity, fast, first_call, slow, chunk): an op's implementation "
              "whose small contiguous calls launch from C.",
    .tp_traverse = (traverseproc)elementwise_traverse,
    .tp_clear = (inquiry)elementwise_clear,
    .tp_members = elementwise_members,
    .tp_new = elementwise_new,
};

/* -- test doubles: a recording launch, fake error names, a settable stream ------------------- */
#define REC_SLOTS 64
#define REC_PARAMS 8
typedef struct {
    void *f, *stream;
    unsigned int g[3], b[3], shmem;
    int extra_null;
    uint64_t params[REC_PARAMS];
} Record;
static Record Rec[REC_SLOTS];
static unsigned long long RecCount = 0, RecNext = 0;
static int RecParams = 0;
static int RecResults[16];
static int RecNResults = 0;
/* the launch runs without the GIL: threads count with an atomic increment */
#if defined(__GNUC__) || defined(__clang__)
#define ATOMIC_INC(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#else
#define ATOMIC_INC(x) ((x)++)
#endif

/* Runs without the GIL, as cuLaunchKernel does: C data only. */
static int recording_launch(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
                            unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                            void *stream, void **params, void **extra)
{
    Record *r = &Rec[ATOMIC_INC(RecCount) % REC_SLOTS];
    r->f = f;
    r->stream = stream;
    r->g[0] = gx, r->g[1] = gy, r->g[2] = gz;
    r->b[0] = bx, r->b[1] = by, r->b[2] = bz;
    r->shmem = shmem;
    r->extra_null = extra == NULL;
    for (int i = 0; i < RecParams; i++) memcpy(&r->params[i], params[i], 8);
    unsigned long long i = ATOMIC_INC(RecNext);
    return i < (unsigned long long)RecNResults ? RecResults[i] : 0;
}

typedef struct {
    uint64_t dst, src;
    size_t bytes;
    void *stream;
} Copy;
static Copy Copies[REC_SLOTS];
static unsigned long long CopyCount = 0;

/* Runs without the GIL, as cuMemcpyDtoDAsync does; shares the launches' queued result codes. */
static int recording_memcpy(uint64_t dst, uint64_t src, size_t bytes, void *stream)
{
    Copy *c = &Copies[ATOMIC_INC(CopyCount) % REC_SLOTS];
    c->dst = dst, c->src = src, c->bytes = bytes, c->stream = stream;
    unsigned long long i = ATOMIC_INC(RecNext);
    return i < (unsigned long long)RecNResults ? RecResults[i] : 0;
}

static PyObject *recorder_copies(PyObject *mod, PyObject *unused)
{
    unsigned long long first = CopyCount > REC_SLOTS ? CopyCount - REC_SLOTS : 0;
    PyObject *out = PyList_New(0);
    for (unsigned long long i = first; out != NULL && i < CopyCount; i++) {
        Copy *c = &Copies[i % REC_SLOTS];
        PyObject *item = Py_BuildValue("{s:K,s:K,s:n,s:N}", "dst", (unsigned long long)c->dst,
                                       "src", (unsigned long long)c->src, "bytes",
                                       (Py_ssize_t)c->bytes, "stream",
                                       PyLong_FromVoidPtr(c->stream));
        if (item == NULL || PyList_Append(out, item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
    }
    return out;
}

static int fake_error_name(int code, const char **text)
{
    *text = "CUDA_ERROR_FAKE";
    return 0;
}

static int fake_error_string(int code, const char **text)
{
    *text = "a fake error for tests";
    return 0;
}

static intptr_t FakeStream = 0;

static intptr_t fake_stream(void)
{
    if (FakeStream == -1) {
        PyErr_SetString(PyExc_RuntimeError, "fake stream getter failed");
        return -1;
    }
    return FakeStream;
}

static PyObject *recorder_reset(PyObject *mod, PyObject *args)
{
    int nparams;
    PyObject *results = NULL;
    if (!PyArg_ParseTuple(args, "i|O:recorder_reset", &nparams, &results)) return NULL;
    if (nparams < 0 || nparams > REC_PARAMS) {
        PyErr_Format(PyExc_ValueError, "recorder_reset: 0 to %d parameters", REC_PARAMS);
        return NULL;
    }
    int codes[16], nc = 0;
    if (results != NULL) {
        PyObject *seq = PySequence_Fast(results, "recorder_reset: results is a sequence");
        if (seq == NULL) return NULL;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < m && i < 16; i++) {
            codes[nc++] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        }
        Py_DECREF(seq);
        if (PyErr_Occurred()) return NULL;
    }
    memcpy(RecResults, codes, sizeof(codes));
    RecNResults = nc;
    RecNext = 0;
    RecParams = nparams;
    RecCount = 0;
    CopyCount = 0;
    Py_RETURN_NONE;
}

static PyObject *recorder_calls(PyObject *mod, PyObject *unused)
{
    unsigned long long first = RecCount > REC_SLOTS ? RecCount - REC_SLOTS : 0;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (unsigned long long i = first; i < RecCount; i++) {
        Record *r = &Rec[i % REC_SLOTS];
        PyObject *ps = PyTuple_New(RecParams);
        if (ps == NULL) goto fail;
        for (int j = 0; j < RecParams; j++)
            PyTuple_SET_ITEM(ps, j, PyLong_FromUnsignedLongLong(r->params[j]));
        PyObject *item = Py_BuildValue(
            "{s:N,s:(III),s:(III),s:I,s:N,s:N,s:O}", "f", PyLong_FromVoidPtr(r->f), "grid",
            r->g[0], r->g[1], r->g[2], "block", r->b[0], r->b[1], r->b[2], "shmem", r->shmem,
            "stream", PyLong_FromVoidPtr(r->stream), "params", ps, "extra_null",
            r->extra_null ? Py_True : Py_False);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *set_scalar_type(PyObject *mod, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "set_scalar_type(numpy.generic)");
        return NULL;
    }
    Py_XSETREF(ScalarType, (PyTypeObject *)Py_NewRef(cls));
    Py_RETURN_NONE;
}

static PyObject *recorder_count(PyObject *mod, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(RecCount);
}

static PyObject *test_functions(PyObject *mod, PyObject *unused)
{
    return Py_BuildValue("{s:N,s:N,s:N,s:N}", "launch",
                         PyLong_FromVoidPtr((void *)recording_launch), "memcpy",
                         PyLong_FromVoidPtr((void *)recording_memcpy), "error_name",
                         PyLong_FromVoidPtr((void *)fake_error_name), "error_string",
                         PyLong_FromVoidPtr((void *)fake_error_string));
}

static PyObject *test_stream(PyObject *mod, PyObject *value)
{
    intptr_t v = (intptr_t)PyLong_AsSsize_t(value);
    if (v == -1 && PyErr_Occurred()) return NULL;
    FakeStream = v;
    return PyCapsule_New((void *)fake_stream, STREAM_SIGNATURE, NULL);
}

static PyObject *launches(PyObject *mod, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(TotalLaunches);
}

static PyObject *status_launches(PyObject *mod, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(StatusLaunches);
}

static PyMethodDef module_methods[] = {
    {"init", init, METH_O, "init(CudaArray): learn the slots the fast path reads and writes."},
    {"launches", launches, METH_NOARGS, "Launches made through Prepared objects so far."},
    {"status_launches", status_launches, METH_NOARGS,
     "Launches through Prepared objects of kernels with floating-point status words so far."},
    {"cache_set", cache_set, METH_O,
     "cache_set(on): turn the small-block cache on or off (off gives its free blocks back); "
     "returns the previous setting."},
    {"cache_clear", cache_clear, METH_NOARGS,
     "Give the cache's free blocks back to the pool; returns how many."},
    {"cache_info", cache_info, METH_NOARGS,
     "The small-block cache: on, hits, misses, blocks held, free ones, their bytes, slots, "
     "max_bytes."},
    {"test_functions", test_functions, METH_NOARGS,
     "{'launch', 'error_name', 'error_string'}: addresses of test doubles of the driver's "
     "functions (the launch records its arguments)."},
    {"test_stream", test_stream, METH_O,
     "test_stream(value): a capsule like CuPy's current-stream getter returning value (-1: it "
     "raises)."},
    {"recorder_reset", recorder_reset, METH_VARARGS,
     "recorder_reset(nparams, results=()): forget the recorded launches; record nparams "
     "8-byte parameters of each; the next launches return results' codes in order, then 0."},
    {"recorder_calls", recorder_calls, METH_NOARGS, "The last 64 recorded launches, as dicts."},
    {"recorder_count", recorder_count, METH_NOARGS, "Launches recorded since the reset."},
    {"set_scalar_type", set_scalar_type, METH_O,
     "set_scalar_type(numpy.generic): the type of the scalar operands Elementwise launches."},
    {"recorder_copies", recorder_copies, METH_NOARGS,
     "The last 64 recorded copies (the test memcpy), as dicts."},
    {"assign_element", (PyCFunction)(void (*)(void))assign_element, METH_FASTCALL,
     "assign_element(driver, dst, key, src): dst[key] = src by one device-to-device copy on the "
     "current stream where key is one int per dimension and src one element of dst's dtype "
     "and context; True when done, False where the Python path must take it."},
    {NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ruda._native._cuda_fast",
    .m_doc = "The cuda backend's small-op launches in C.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__cuda_fast(void)
{
    if (PyType_Ready(&DriverType) < 0 || PyType_Ready(&PreparedType) < 0 ||
        PyType_Ready(&ElementwiseType) < 0)
        return NULL;
    StrPtr = PyUnicode_InternFromString("ptr");
    StrMem = PyUnicode_InternFromString("mem");
    StrIsContiguous = PyUnicode_InternFromString("is_contiguous");
    StrDtype = PyUnicode_InternFromString("dtype");
    One = PyLong_FromLong(1);
    Zero = PyLong_FromLong(0);
    if (StrPtr == NULL || StrMem == NULL || StrIsContiguous == NULL || Zero == NULL ||
        StrDtype == NULL || One == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "Driver", (PyObject *)&DriverType) < 0 ||
        PyModule_AddObjectRef(m, "Prepared", (PyObject *)&PreparedType) < 0 ||
        PyModule_AddObjectRef(m, "Elementwise", (PyObject *)&ElementwiseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
