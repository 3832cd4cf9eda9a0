/* The Array object's hot paths in C: construction, basic indexing and binary operators.
 *
 * ruda's wrapper cost is the product on small arrays, and a Python-level dunder plus object
 * creation costs more than NumPy's whole operation on 1,000 elements. This base type holds the
 * two fields of an Array (_data, _device) and implements the common cases directly:
 *   - x[key] with an int/slice/None/Ellipsis key (or a tuple of them), or a ruda index array;
 *   - x OP y for two arrays on one device, or an array and a Python int/float.
 * Every other case calls the Python implementation registered through init(), so semantics
 * live in one place (ruda/_array.py) and this file only skips interpreter overhead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *data;
    PyObject *device;
    PyObject *weakreflist;
} ArrayBase;

static PyTypeObject *ArrayType = NULL;  /* ruda.Array (made from ab_spec) */
static PyObject *CPU = NULL;            /* the cpu Device object */
static PyTypeObject *NDArray = NULL;    /* numpy.ndarray */
static PyObject *AsArray = NULL;        /* numpy.asarray: NumPy scalars become 0-d arrays */
static PyObject *SlowGetitem = NULL;    /* (self, key) -> Array, the full Python path */
static PyObject *Fallbacks = NULL;      /* {op name: (forward, reflected)} Python functions */
static PyObject *OpsAttr = NULL;        /* interned "_ops" */
static PyObject *Annotate = NULL;       /* (op name, exception) -> exception naming ruda.<op> */
static PyObject *ReshapeSlow = NULL;    /* the Python Array.reshape, for keywords and odd shapes */
static PyObject *ReshapeName = NULL;    /* interned "reshape" */
static PyObject *GetitemName = NULL;    /* interned "Array.__getitem__" */
static PyObject *Guarded = NULL;        /* the dtype whose arrays take an op's slow path */
/* Off the cpu, the namespace decides the elementwise ops' Python scalars' dtypes (Typed: the op
 * names) and, for the op names in Decided, checks values or picks the loop (integer powers'
 * negative exponents, ldexp) before a backend sees the operands: such calls take the Python
 * path. */
static PyObject *Typed = NULL, *Decided = NULL;
static PyObject *DtypeName = NULL;      /* interned "dtype" */
static PyTypeObject *ObjectDType = NULL; /* type(numpy.dtype(object)): object arrays' dtype class */
static void reraise_named(PyObject *name);

enum {
    OP_ADD, OP_SUB, OP_MUL, OP_TRUEDIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_AND, OP_OR, OP_XOR,
    OP_LSHIFT, OP_RSHIFT, OP_MATMUL, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, N_OPS
};
static const char *OP_NAMES[N_OPS] = {
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "matmul", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"};
static PyObject *OpName[N_OPS];

/* A new Array around data (a new reference, stolen) on device. */
static PyObject *wrap(PyObject *data, PyObject *device)
{
    if (Py_TYPE(data) != NDArray && device == CPU) {
        PyObject *d = PyObject_CallOneArg(AsArray, data);
        Py_DECREF(data);
        if (d == NULL) return NULL;
        data = d;
    }
    ArrayBase *a = (ArrayBase *)ArrayType->tp_alloc(ArrayType, 0);
    if (a == NULL) {
        Py_DECREF(data);
        return NULL;
    }
    a->data = data;
    Py_INCREF(device);
    a->device = device;
    return (PyObject *)a;
}

static int simple_index(PyObject *k)
{
    return PyLong_CheckExact(k) || PySlice_Check(k) || k == Py_Ellipsis || k == Py_None;
}

/* Whether data (an ndarray) holds Python objects: its elements are returned as stored. */
static int is_object_array(PyObject *data)
{
    if (ObjectDType == NULL) return 0;
    PyObject *d = PyObject_GetAttr(data, DtypeName);
    if (d == NULL) {
        PyErr_Clear();
        return 0;
    }
    int r = Py_TYPE(d) == ObjectDType;
    Py_DECREF(d);
    return r;
}

static PyObject *ab_getitem(ArrayBase *self, PyObject *key)
{
    if (self->device == CPU && ArrayType != NULL) {
        PyObject *native = NULL;
        int ints = 0; /* the key is Python ints only: it may pick one element */
        if (simple_index(key)) {
            native = key;
            ints = PyLong_CheckExact(key);
        } else if (PyTuple_CheckExact(key)) {
            Py_ssize_t n = PyTuple_GET_SIZE(key);
            native = key;
            ints = 1;
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *k = PyTuple_GET_ITEM(key, i);
                if (!simple_index(k)) {
                    native = NULL;
                    break;
                }
                ints &= PyLong_CheckExact(k);
            }
        } else if (Py_TYPE(key) == ArrayType && ((ArrayBase *)key)->device == CPU) {
            native = ((ArrayBase *)key)->data;
            ints = 1; /* a 0-d integer array picks one element too */
        }
        if (native != NULL) {
            PyObject *r = PyObject_GetItem(self->data, native);
            if (r == NULL) {
                reraise_named(GetitemName);
                return NULL;
            }
            if (Py_TYPE(r) != NDArray) {
                /* one element: an object array's is the stored object itself, as in NumPy */
                if (is_object_array(self->data)) return r;
            } else if (ints && is_object_array(self->data)) {
                /* an element that is itself an ndarray, or a view: the Python path tells */
                Py_DECREF(r);
                return PyObject_CallFunctionObjArgs(SlowGetitem, (PyObject *)self, key, NULL);
            }
            return wrap(r, self->device);
        }
    }
    return PyObject_CallFunctionObjArgs(SlowGetitem, (PyObject *)self, key, NULL);
}

/* The implementation of an op on device: device._ops[name] (a dict whose misses resolve).
 * A small direct-mapped cache keyed by (device, interned name) skips the attribute load and the
 * dict lookup on the hot path; invalidate() empties it when the dispatch table changes. */
#define CACHE_SIZE 128
static struct {
    PyObject *device, *name, *impl;
} Cache[CACHE_SIZE];

static void cache_clear(void)
{
    for (int i = 0; i < CACHE_SIZE; i++) {
        Py_CLEAR(Cache[i].device);
        Py_CLEAR(Cache[i].name);
        Py_CLEAR(Cache[i].impl);
    }
}

static PyObject *lookup(PyObject *device, PyObject *name)
{
    size_t h = (((size_t)device >> 4) ^ ((size_t)name >> 4) * 31) % CACHE_SIZE;
    if (Cache[h].device == device && Cache[h].name == name) return Py_NewRef(Cache[h].impl);
    PyObject *ops = PyObject_GetAttr(device, OpsAttr);
    if (ops == NULL) return NULL;
    PyObject *impl = NULL;
    if (PyDict_Check(ops)) {
        impl = PyDict_GetItemWithError(ops, name);
        Py_XINCREF(impl);
    }
    if (impl == NULL && !PyErr_Occurred()) impl = PyObject_GetItem(ops, name);
    Py_DECREF(ops);
    if (impl != NULL) {
        /* the entry owns its keys, so a pointer can never be reused while it is cached */
        Py_XSETREF(Cache[h].impl, Py_NewRef(impl));
        Py_XSETREF(Cache[h].device, Py_NewRef(device));
        Py_XSETREF(Cache[h].name, Py_NewRef(name));
    }
    return impl;
}

static PyObject *invalidate(PyObject *mod, PyObject *unused)
{
    cache_clear();
    Py_RETURN_NONE;
}

/* impl(args...) wrapped as an Array on device. */
static PyObject *call_named(PyObject *device, PyObject *name, PyObject *const *args, size_t n)
{
    PyObject *impl = lookup(device, name);
    if (impl == NULL) return NULL;
    PyObject *r = PyObject_Vectorcall(impl, args, n, NULL);
    Py_DECREF(impl);
    return r == NULL ? NULL : wrap(r, device);
}

static PyObject *call_impl(PyObject *device, int op, PyObject *a, PyObject *b)
{
    PyObject *args[2] = {a, b};
    return call_named(device, OpName[op], args, 2);
}

static int fast_scalar(PyObject *o)
{
    return PyFloat_CheckExact(o) || PyLong_CheckExact(o);
}

static PyObject *fallback(int op, int reflected, PyObject *self, PyObject *other)
{
    PyObject *pair = PyDict_GetItemWithError(Fallbacks, OpName[op]);
    if (pair == NULL) {
        if (!PyErr_Occurred()) Py_RETURN_NOTIMPLEMENTED;
        return NULL;
    }
    PyObject *fn = PyTuple_GET_ITEM(pair, reflected);
    if (fn == Py_None) Py_RETURN_NOTIMPLEMENTED;
    return PyObject_CallFunctionObjArgs(fn, self, other, NULL);
}

/* 1 when a call of op name on device must take the namespace's Python path (see Decided). */
static int decided(PyObject *device, PyObject *name, int scalar)
{
    if (device == CPU) return 0;
    if (scalar && Typed != NULL && PySet_Contains(Typed, name) == 1) return 1;
    return Decided != NULL && PySet_Contains(Decided, name) == 1;
}

static PyObject *binop(PyObject *a, PyObject *b, int op)
{
    if (Py_TYPE(a) == ArrayType) {
        ArrayBase *x = (ArrayBase *)a;
        if (Py_TYPE(b) == ArrayType && ((ArrayBase *)b)->device == x->device) {
            if (decided(x->device, OpName[op], 0)) return fallback(op, 0, a, b);
            return call_impl(x->device, op, x->data, ((ArrayBase *)b)->data);
        }
        if (fast_scalar(b) && !decided(x->device, OpName[op], 1))
            return call_impl(x->device, op, x->data, b);
        return fallback(op, 0, a, b);
    }
    if (Py_TYPE(b) == ArrayType && fast_scalar(a) && !decided(((ArrayBase *)b)->device, OpName[op], 1))
        return call_impl(((ArrayBase *)b)->device, op, a, ((ArrayBase *)b)->data);
    if (ArrayType != NULL && PyObject_TypeCheck(a, ArrayType)) return fallback(op, 0, a, b);
    return fallback(op, 1, b, a);
}

#define BINARY_SLOT(fname, op) \
    static PyObject *fname(PyObject *a, PyObject *b) { return binop(a, b, op); }
BINARY_SLOT(ab_add, OP_ADD)
BINARY_SLOT(ab_sub, OP_SUB)
BINARY_SLOT(ab_mul, OP_MUL)
BINARY_SLOT(ab_truediv, OP_TRUEDIV)
BINARY_SLOT(ab_floordiv, OP_FLOORDIV)
BINARY_SLOT(ab_mod, OP_MOD)
BINARY_SLOT(ab_and, OP_AND)
BINARY_SLOT(ab_or, OP_OR)
BINARY_SLOT(ab_xor, OP_XOR)
BINARY_SLOT(ab_lshift, OP_LSHIFT)
BINARY_SLOT(ab_rshift, OP_RSHIFT)
BINARY_SLOT(ab_matmul, OP_MATMUL)

static PyObject *ab_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        PyErr_SetString(PyExc_TypeError, "ruda: pow() with a modulus is not supported for arrays");
        return NULL;
    }
    return binop(a, b, OP_POW);
}

static PyObject *ab_richcompare(PyObject *a, PyObject *b, int cmp)
{
    static const int map[6] = {OP_LT, OP_LE, OP_EQ, OP_NE, OP_GT, OP_GE};
    return binop(a, b, map[cmp]);
}

/* No GC support, on purpose: an Array refers only to its native array and its device, and NumPy's
 * arrays are not GC-tracked either, so tracking would cost every allocation and free nothing. */
static void ab_dealloc(ArrayBase *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    if (self->weakreflist != NULL) PyObject_ClearWeakRefs((PyObject *)self);
    Py_CLEAR(self->data);
    Py_CLEAR(self->device);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);  /* instances of a heap type own a reference to it */
}

static PyObject *tuple_from(PyObject *const *items, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(items[i]));
    return t;
}

/* x.reshape(2, 3) / x.reshape((2, 3)): the "reshape" op on x's device; keywords (order=, copy=)
 * and non-int shapes take the Python method. */
static PyObject *ab_reshape(ArrayBase *self, PyObject *const *args, Py_ssize_t nargsf,
                            PyObject *kwnames)
{
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    PyObject *shape = NULL;
    if (kwnames == NULL && n == 1 && (PyTuple_CheckExact(args[0]) || PyLong_CheckExact(args[0]))) {
        shape = Py_NewRef(args[0]);
    } else if (kwnames == NULL && n > 1) {
        int ints = 1;
        for (Py_ssize_t i = 0; i < n; i++) ints &= PyLong_CheckExact(args[i]);
        if (ints) shape = tuple_from(args, n);
        if (ints && shape == NULL) return NULL;
    }
    if (shape == NULL) {
        if (ReshapeSlow == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "ruda._native._speedups is not initialised");
            return NULL;
        }
        PyObject *full[9];
        Py_ssize_t nk = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
        if (n + nk + 1 > 9) {
            PyObject *t = tuple_from(args, n);  /* rare: many dims and keywords */
            if (t == NULL) return NULL;
            PyObject *r = PyObject_Call(ReshapeSlow, t, NULL);
            Py_DECREF(t);
            return r;
        }
        full[0] = (PyObject *)self;
        for (Py_ssize_t i = 0; i < n + nk; i++) full[i + 1] = args[i];
        return PyObject_Vectorcall(ReshapeSlow, full, (size_t)(n + 1), kwnames);
    }
    PyObject *pair[2] = {self->data, shape};
    PyObject *r = call_named(self->device, ReshapeName, pair, 2);
    Py_DECREF(shape);
    return r;
}

static PyMethodDef ab_methods[] = {
    {"reshape", (PyCFunction)(void (*)(void))ab_reshape, METH_FASTCALL | METH_KEYWORDS,
     "Reshape; like NumPy, accepts x.reshape(2, 3) and x.reshape((2, 3))."},
    {NULL}};

static PyMemberDef ab_type_members[] = {
    {"_data", T_OBJECT_EX, offsetof(ArrayBase, data), 0, "the backend-native array"},
    {"_device", T_OBJECT_EX, offsetof(ArrayBase, device), 0, "the Device"},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ArrayBase, weakreflist), READONLY},
    {NULL}};

/* ruda.Array itself: a heap type (so ruda/_array.py can add its Python methods) whose hot
 * slots are these C functions. */
static PyType_Slot ab_slots[] = {
    {Py_tp_dealloc, ab_dealloc},
    {Py_tp_doc, "An n-dimensional array on a device."},
    {Py_tp_members, ab_type_members},
    {Py_tp_methods, ab_methods},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_richcompare, ab_richcompare},
    {Py_mp_subscript, ab_getitem},
    {Py_nb_add, ab_add},
    {Py_nb_subtract, ab_sub},
    {Py_nb_multiply, ab_mul},
    {Py_nb_remainder, ab_mod},
    {Py_nb_power, ab_pow},
    {Py_nb_lshift, ab_lshift},
    {Py_nb_rshift, ab_rshift},
    {Py_nb_and, ab_and},
    {Py_nb_xor, ab_xor},
    {Py_nb_or, ab_or},
    {Py_nb_floor_divide, ab_floordiv},
    {Py_nb_true_divide, ab_truediv},
    {Py_nb_matrix_multiply, ab_matmul},
    {0, NULL}};

static PyType_Spec ab_spec = {
    .name = "ruda.Array",
    .basicsize = sizeof(ArrayBase),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = ab_slots,
};

/* Annotated(name, fn, slow=None, scalars=False): calls fn; an exception it raises is re-raised
 * naming ruda.<name>, so errors from a backend say which ruda function failed. Costs one C call
 * on success. With slow: calls slow instead when a positional argument is an ndarray of the
 * guarded dtype (set_guarded: bfloat16, whose NumPy loops need ruda's fixes) and, with scalars,
 * another is a Python int or float; every other call pays a few pointer compares. */
typedef struct {
    PyObject_HEAD
    PyObject *name;
    PyObject *fn;
    vectorcallfunc vectorcall;
    PyObject *slow;
    int scalars;
} Annotated;

/* Whether args hold an ndarray of the guarded dtype (and, with scalars, a Python int/float). */
static int wants_slow(Annotated *a, PyObject *const *args, Py_ssize_t n)
{
    if (Guarded == NULL) return 0;
    if (a->scalars) {
        int found = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (PyFloat_CheckExact(args[i]) || PyLong_CheckExact(args[i])) found = 1;
        if (!found) return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_TYPE(args[i]) != NDArray) continue;
        PyObject *d = PyObject_GetAttr(args[i], DtypeName);
        if (d == NULL) return -1;
        int hit = d == Guarded;
        Py_DECREF(d);
        if (hit) return 1;
    }
    return 0;
}

/* With an exception set: replace it by Annotate(name, exception), which names ruda.<name>. */
static void reraise_named(PyObject *name)
{
    if (Annotate == NULL) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value == NULL) {
        PyErr_Restore(type, value, tb);
        return;
    }
    if (tb != NULL) PyException_SetTraceback(value, tb);
    PyObject *repl = PyObject_CallFunctionObjArgs(Annotate, name, value, NULL);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    Py_DECREF(value);
    if (repl == NULL) return;
    PyErr_SetObject((PyObject *)Py_TYPE(repl), repl);
    Py_DECREF(repl);
}

static PyObject *annotated_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                      PyObject *kwnames)
{
    Annotated *a = (Annotated *)self;
    PyObject *fn = a->fn;
    if (a->slow != NULL) {
        int w = wants_slow(a, args, PyVectorcall_NARGS(nargsf));
        if (w < 0) return NULL;
        if (w) fn = a->slow;
    }
    PyObject *r = PyObject_Vectorcall(fn, args, nargsf, kwnames);
    if (r == NULL) reraise_named(a->name);
    return r;
}

static PyObject *annotated_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *name, *fn, *slow = Py_None;
    int scalars = 0;
    if (!PyArg_ParseTuple(args, "UO|Op:Annotated", &name, &fn, &slow, &scalars)) return NULL;
    Annotated *a = (Annotated *)tp->tp_alloc(tp, 0);
    if (a == NULL) return NULL;
    a->name = Py_NewRef(name);
    a->fn = Py_NewRef(fn);
    a->slow = slow == Py_None ? NULL : Py_NewRef(slow);
    a->scalars = scalars;
    a->vectorcall = annotated_vectorcall;
    return (PyObject *)a;
}

static int annotated_traverse(Annotated *a, visitproc visit, void *arg)
{
    Py_VISIT(a->fn);
    Py_VISIT(a->slow);
    return 0;
}

static int annotated_clear(Annotated *a)
{
    Py_CLEAR(a->name);
    Py_CLEAR(a->fn);
    Py_CLEAR(a->slow);
    return 0;
}

static void annotated_dealloc(Annotated *a)
{
    PyObject_GC_UnTrack(a);
    annotated_clear(a);
    Py_TYPE(a)->tp_free((PyObject *)a);
}

static PyMemberDef annotated_members[] = {
    {"__wrapped__", T_OBJECT_EX, offsetof(Annotated, fn), READONLY, "the implementation"},
    {"op", T_OBJECT_EX, offsetof(Annotated, name), READONLY, "the op name"},
    {NULL}};

static PyTypeObject AnnotatedType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruda._native._speedups.Annotated",
    .tp_basicsize = sizeof(Annotated),
    .tp_dealloc = (destructor)annotated_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Annotated, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Annotated(name, fn): fn whose errors name ruda.<name>.",
    .tp_traverse = (traverseproc)annotated_traverse,
    .tp_clear = (inquiry)annotated_clear,
    .tp_members = annotated_members,
    .tp_new = annotated_new,
};

static PyObject *set_annotate(PyObject *mod, PyObject *fn)
{
    Py_XSETREF(Annotate, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyObject *set_guarded(PyObject *mod, PyObject *dtype)
{
    Py_XSETREF(Guarded, Py_NewRef(dtype));
    Py_RETURN_NONE;
}

static PyObject *set_decided(PyObject *mod, PyObject *args)
{
    PyObject *typed, *decided;
    if (!PyArg_ParseTuple(args, "O!O!:set_decided", &PySet_Type, &typed, &PySet_Type, &decided))
        return NULL;
    Py_XSETREF(Typed, Py_NewRef(typed));
    Py_XSETREF(Decided, Py_NewRef(decided));
    Py_RETURN_NONE;
}

static PyObject *set_reshape(PyObject *mod, PyObject *fn)
{
    Py_XSETREF(ReshapeSlow, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static PyObject *init(PyObject *mod, PyObject *args)
{
    PyObject *cpu, *nd, *asarray, *slow, *fb, *objdt = NULL;
    if (!PyArg_ParseTuple(args, "OO!OOO!|O", &cpu, &PyType_Type, &nd, &asarray, &slow,
                          &PyDict_Type, &fb, &objdt))
        return NULL;
    if (objdt != NULL) Py_XSETREF(ObjectDType, (PyTypeObject *)Py_NewRef(Py_TYPE(objdt)));
    Py_XSETREF(CPU, Py_NewRef(cpu));
    Py_XSETREF(NDArray, (PyTypeObject *)Py_NewRef(nd));
    Py_XSETREF(AsArray, Py_NewRef(asarray));
    Py_XSETREF(SlowGetitem, Py_NewRef(slow));
    Py_XSETREF(Fallbacks, Py_NewRef(fb));
    Py_RETURN_NONE;
}

/* call1(name, x): device._ops[name](x._data) as an Array, or NotImplemented if x is not an Array. */
static PyObject *api_call1(PyObject *mod, PyObject *const *args, Py_ssize_t n)
{
    if (n != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "call1(name, x)");
        return NULL;
    }
    if (Py_TYPE(args[1]) != ArrayType) Py_RETURN_NOTIMPLEMENTED;
    ArrayBase *x = (ArrayBase *)args[1];
    return call_named(x->device, args[0], &x->data, 1);
}

/* call2(name, a, b): two arrays on one device, or an array and a Python int/float; else
 * NotImplemented so the caller takes its full path. */
static PyObject *api_call2(PyObject *mod, PyObject *const *args, Py_ssize_t n)
{
    if (n != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "call2(name, a, b)");
        return NULL;
    }
    PyObject *a = args[1], *b = args[2], *pair[2];
    PyObject *device;
    int scalar = 0;
    if (Py_TYPE(a) == ArrayType) {
        device = ((ArrayBase *)a)->device;
        pair[0] = ((ArrayBase *)a)->data;
        if (Py_TYPE(b) == ArrayType && ((ArrayBase *)b)->device == device)
            pair[1] = ((ArrayBase *)b)->data;
        else if (fast_scalar(b))
            pair[1] = b, scalar = 1;
        else
            Py_RETURN_NOTIMPLEMENTED;
    } else if (Py_TYPE(b) == ArrayType && fast_scalar(a)) {
        device = ((ArrayBase *)b)->device;
        pair[0] = a, scalar = 1;
        pair[1] = ((ArrayBase *)b)->data;
    } else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (decided(device, args[0], scalar)) Py_RETURN_NOTIMPLEMENTED;
    return call_named(device, args[0], pair, 2);
}

/* callx(name, x, *args): device._ops[name](x._data, *args) as an Array, or NotImplemented if x
 * is not an Array (shapes, axes and other plain arguments pass through unchanged). */
static PyObject *api_callx(PyObject *mod, PyObject *const *args, Py_ssize_t n)
{
    if (n < 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "callx(name, x, *args)");
        return NULL;
    }
    if (Py_TYPE(args[1]) != ArrayType) Py_RETURN_NOTIMPLEMENTED;
    ArrayBase *x = (ArrayBase *)args[1];
    PyObject *small[8];
    PyObject **argv = small;
    if (n - 1 > 8) {
        argv = PyMem_Malloc((n - 1) * sizeof(PyObject *));
        if (argv == NULL) return PyErr_NoMemory();
    }
    argv[0] = x->data;
    for (Py_ssize_t i = 2; i < n; i++) argv[i - 1] = args[i];
    PyObject *r = call_named(x->device, args[0], argv, (size_t)(n - 1));
    if (argv != small) PyMem_Free(argv);
    return r;
}

static PyObject *op_names(PyObject *mod, PyObject *unused)
{
    PyObject *t = PyTuple_New(N_OPS);
    if (t == NULL) return NULL;
    for (int i = 0; i < N_OPS; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(OpName[i]));
    return t;
}

static PyMethodDef module_methods[] = {
    {"init", init, METH_VARARGS,
     "init(cpu, ndarray, asarray, slow_getitem, fallbacks[, object_dtype]): wire the Python "
     "side."},
    {"op_names", op_names, METH_NOARGS, "The op names whose operators run here."},
    {"set_annotate", set_annotate, METH_O, "set_annotate(fn): (op name, exc) -> exc to raise."},
    {"set_guarded", set_guarded, METH_O,
     "set_guarded(dtype): arrays of this NumPy dtype take an Annotated op's slow path."},
    {"invalidate", invalidate, METH_NOARGS, "Forget cached implementations (after register)."},
    {"set_decided", set_decided, METH_VARARGS,
     "set_decided(typed, decided): off the cpu, calls of the ops in typed with a Python scalar, "
     "and every call of the ops in decided, take the namespace's path."},
    {"set_reshape", set_reshape, METH_O, "set_reshape(fn): the Python Array.reshape (slow path)."},
    {"call1", (PyCFunction)(void (*)(void))api_call1, METH_FASTCALL,
     "call1(name, x): the op on x's device, or NotImplemented when x is not an Array."},
    {"callx", (PyCFunction)(void (*)(void))api_callx, METH_FASTCALL,
     "callx(name, x, *args): the op on x's device with plain extra arguments, else NotImplemented."},
    {"call2", (PyCFunction)(void (*)(void))api_call2, METH_FASTCALL,
     "call2(name, a, b): the op for two arrays (or array and int/float), else NotImplemented."},
    {NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ruda._native._speedups",
                                    "Hot paths of ruda.Array in C.", -1, module_methods};

PyMODINIT_FUNC PyInit__speedups(void)
{
    if (PyType_Ready(&AnnotatedType) < 0) return NULL;
    ArrayType = (PyTypeObject *)PyType_FromSpec(&ab_spec);
    if (ArrayType == NULL) return NULL;
    OpsAttr = PyUnicode_InternFromString("_ops");
    ReshapeName = PyUnicode_InternFromString("reshape");
    GetitemName = PyUnicode_InternFromString("Array.__getitem__");
    DtypeName = PyUnicode_InternFromString("dtype");
    if (OpsAttr == NULL || ReshapeName == NULL || GetitemName == NULL || DtypeName == NULL)
        return NULL;
    for (int i = 0; i < N_OPS; i++) {
        OpName[i] = PyUnicode_InternFromString(OP_NAMES[i]);
        if (OpName[i] == NULL) return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "Array", (PyObject *)ArrayType) < 0 ||
        PyModule_AddObjectRef(m, "Annotated", (PyObject *)&AnnotatedType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
