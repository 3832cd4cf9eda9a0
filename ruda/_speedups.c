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

static PyTypeObject *ArrayType = NULL;  /* the Python subclass ruda.Array */
static PyObject *CPU = NULL;            /* the cpu Device object */
static PyTypeObject *NDArray = NULL;    /* numpy.ndarray */
static PyObject *AsArray = NULL;        /* numpy.asarray: NumPy scalars become 0-d arrays */
static PyObject *SlowGetitem = NULL;    /* (self, key) -> Array, the full Python path */
static PyObject *Fallbacks = NULL;      /* {op name: (forward, reflected)} Python functions */
static PyObject *OpsAttr = NULL;        /* interned "_ops" */
static PyObject *Annotate = NULL;       /* (op name, exception) -> exception naming ruda.<op> */

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

static PyObject *ab_getitem(ArrayBase *self, PyObject *key)
{
    if (self->device == CPU && ArrayType != NULL) {
        PyObject *native = NULL;
        if (simple_index(key)) {
            native = key;
        } else if (PyTuple_CheckExact(key)) {
            Py_ssize_t n = PyTuple_GET_SIZE(key);
            native = key;
            for (Py_ssize_t i = 0; i < n; i++) {
                if (!simple_index(PyTuple_GET_ITEM(key, i))) {
                    native = NULL;
                    break;
                }
            }
        } else if (Py_TYPE(key) == ArrayType && ((ArrayBase *)key)->device == CPU) {
            native = ((ArrayBase *)key)->data;
        }
        if (native != NULL) {
            PyObject *r = PyObject_GetItem(self->data, native);
            return r == NULL ? NULL : wrap(r, self->device);
        }
    }
    return PyObject_CallFunctionObjArgs(SlowGetitem, (PyObject *)self, key, NULL);
}

/* The implementation of an op on device: device._ops[name] (a dict whose misses resolve). */
static PyObject *lookup(PyObject *device, PyObject *name)
{
    PyObject *ops = PyObject_GetAttr(device, OpsAttr);
    if (ops == NULL) return NULL;
    PyObject *impl = NULL;
    if (PyDict_Check(ops)) {
        impl = PyDict_GetItemWithError(ops, name);
        Py_XINCREF(impl);
    }
    if (impl == NULL && !PyErr_Occurred()) impl = PyObject_GetItem(ops, name);
    Py_DECREF(ops);
    return impl;
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

static PyObject *binop(PyObject *a, PyObject *b, int op)
{
    if (Py_TYPE(a) == ArrayType) {
        ArrayBase *x = (ArrayBase *)a;
        if (Py_TYPE(b) == ArrayType && ((ArrayBase *)b)->device == x->device)
            return call_impl(x->device, op, x->data, ((ArrayBase *)b)->data);
        if (fast_scalar(b)) return call_impl(x->device, op, x->data, b);
        return fallback(op, 0, a, b);
    }
    if (Py_TYPE(b) == ArrayType && fast_scalar(a))
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

static int ab_traverse(ArrayBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->data);
    Py_VISIT(self->device);
    return 0;
}

static int ab_clear(ArrayBase *self)
{
    Py_CLEAR(self->data);
    Py_CLEAR(self->device);
    return 0;
}

static void ab_dealloc(ArrayBase *self)
{
    PyObject_GC_UnTrack(self);
    if (self->weakreflist != NULL) PyObject_ClearWeakRefs((PyObject *)self);
    ab_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef ab_members[] = {
    {"_data", T_OBJECT_EX, offsetof(ArrayBase, data), 0, "the backend-native array"},
    {"_device", T_OBJECT_EX, offsetof(ArrayBase, device), 0, "the Device"},
    {NULL}};

static PyNumberMethods ab_as_number = {
    .nb_add = ab_add,
    .nb_subtract = ab_sub,
    .nb_multiply = ab_mul,
    .nb_remainder = ab_mod,
    .nb_power = ab_pow,
    .nb_lshift = ab_lshift,
    .nb_rshift = ab_rshift,
    .nb_and = ab_and,
    .nb_xor = ab_xor,
    .nb_or = ab_or,
    .nb_floor_divide = ab_floordiv,
    .nb_true_divide = ab_truediv,
    .nb_matrix_multiply = ab_matmul,
};

static PyMappingMethods ab_as_mapping = {.mp_subscript = (binaryfunc)ab_getitem};

static PyTypeObject ArrayBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruda._speedups.ArrayBase",
    .tp_basicsize = sizeof(ArrayBase),
    .tp_dealloc = (destructor)ab_dealloc,
    .tp_as_number = &ab_as_number,
    .tp_as_mapping = &ab_as_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The C part of ruda.Array: its two fields and its hot paths.",
    .tp_traverse = (traverseproc)ab_traverse,
    .tp_clear = (inquiry)ab_clear,
    .tp_richcompare = ab_richcompare,
    .tp_weaklistoffset = offsetof(ArrayBase, weakreflist),
    .tp_members = ab_members,
    .tp_new = PyType_GenericNew,
};

/* Annotated(name, fn): calls fn; an exception it raises is re-raised naming ruda.<name>, so
 * errors from a backend say which ruda function failed. Costs one C call on success. */
typedef struct {
    PyObject_HEAD
    PyObject *name;
    PyObject *fn;
    vectorcallfunc vectorcall;
} Annotated;

static PyObject *annotated_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                      PyObject *kwnames)
{
    Annotated *a = (Annotated *)self;
    PyObject *r = PyObject_Vectorcall(a->fn, args, nargsf, kwnames);
    if (r != NULL || Annotate == NULL) return r;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value == NULL) {
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    if (tb != NULL) PyException_SetTraceback(value, tb);
    PyObject *repl = PyObject_CallFunctionObjArgs(Annotate, a->name, value, NULL);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    if (repl == NULL) {
        Py_DECREF(value);
        return NULL;
    }
    Py_DECREF(value);
    PyErr_SetObject((PyObject *)Py_TYPE(repl), repl);
    Py_DECREF(repl);
    return NULL;
}

static PyObject *annotated_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *name, *fn;
    if (!PyArg_ParseTuple(args, "UO:Annotated", &name, &fn)) return NULL;
    Annotated *a = (Annotated *)tp->tp_alloc(tp, 0);
    if (a == NULL) return NULL;
    a->name = Py_NewRef(name);
    a->fn = Py_NewRef(fn);
    a->vectorcall = annotated_vectorcall;
    return (PyObject *)a;
}

static int annotated_traverse(Annotated *a, visitproc visit, void *arg)
{
    Py_VISIT(a->fn);
    return 0;
}

static int annotated_clear(Annotated *a)
{
    Py_CLEAR(a->name);
    Py_CLEAR(a->fn);
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
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ruda._speedups.Annotated",
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

static PyObject *init(PyObject *mod, PyObject *args)
{
    PyObject *arr, *cpu, *nd, *asarray, *slow, *fb;
    if (!PyArg_ParseTuple(args, "O!OO!OOO!", &PyType_Type, &arr, &cpu, &PyType_Type, &nd,
                          &asarray, &slow, &PyDict_Type, &fb))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)arr, &ArrayBaseType)) {
        PyErr_SetString(PyExc_TypeError, "init: the array type must derive from ArrayBase");
        return NULL;
    }
    Py_XSETREF(ArrayType, (PyTypeObject *)Py_NewRef(arr));
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
    if (Py_TYPE(a) == ArrayType) {
        device = ((ArrayBase *)a)->device;
        pair[0] = ((ArrayBase *)a)->data;
        if (Py_TYPE(b) == ArrayType && ((ArrayBase *)b)->device == device)
            pair[1] = ((ArrayBase *)b)->data;
        else if (fast_scalar(b))
            pair[1] = b;
        else
            Py_RETURN_NOTIMPLEMENTED;
    } else if (Py_TYPE(b) == ArrayType && fast_scalar(a)) {
        device = ((ArrayBase *)b)->device;
        pair[0] = a;
        pair[1] = ((ArrayBase *)b)->data;
    } else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return call_named(device, args[0], pair, 2);
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
     "init(Array, cpu, ndarray, asarray, slow_getitem, fallbacks): wire the Python side."},
    {"op_names", op_names, METH_NOARGS, "The op names whose operators run here."},
    {"set_annotate", set_annotate, METH_O, "set_annotate(fn): (op name, exc) -> exc to raise."},
    {"call1", (PyCFunction)(void (*)(void))api_call1, METH_FASTCALL,
     "call1(name, x): the op on x's device, or NotImplemented when x is not an Array."},
    {"call2", (PyCFunction)(void (*)(void))api_call2, METH_FASTCALL,
     "call2(name, a, b): the op for two arrays (or array and int/float), else NotImplemented."},
    {NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "ruda._speedups",
                                    "Hot paths of ruda.Array in C.", -1, module_methods};

PyMODINIT_FUNC PyInit__speedups(void)
{
    if (PyType_Ready(&ArrayBaseType) < 0) return NULL;
    if (PyType_Ready(&AnnotatedType) < 0) return NULL;
    OpsAttr = PyUnicode_InternFromString("_ops");
    if (OpsAttr == NULL) return NULL;
    for (int i = 0; i < N_OPS; i++) {
        OpName[i] = PyUnicode_InternFromString(OP_NAMES[i]);
        if (OpName[i] == NULL) return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "ArrayBase", (PyObject *)&ArrayBaseType) < 0 ||
        PyModule_AddObjectRef(m, "Annotated", (PyObject *)&AnnotatedType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
