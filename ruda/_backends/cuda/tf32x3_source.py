"""CUDA C++ of ruda's float32 matrix product on tensor cores, three TF32 products a term.

Each float32 operand is split into two TF32 values, ``x = hi + lo`` (``hi`` its leading 11
significant bits rounded to nearest, ``lo`` the next 11), and ``a * b`` is summed as ``a.lo *
b.hi + a.hi * b.lo + a.hi * b.hi`` with ``mma.sync`` m16n8k8 (float32 accumulators). The
dropped ``a.lo * b.lo`` and the rounding of ``lo`` are below 2^-21 of ``|a * b|``: the sums
agree with float32 SIMT products to float32's rounding, at the tensor cores' rate (sm_80+).
An infinity or NaN enters only the last term (the cross terms see 0 for it), so ``inf * 1.0``
stays ``inf`` although 1.0's ``lo`` is 0.

A block computes a ``bm x bn`` tile of C from 8-deep slices of A and B, split into TF32 hi
and lo planes as they are staged into shared memory (two buffers: the next slice is loaded into
registers while the current one is multiplied); each warp computes a ``wm x wn`` part of it.
Rows are padded (by 4 and 8 words) so the fragment loads of a warp hit 32 different banks. The
tensor cores' adds truncate: each slice's three products start from 0 and join the float32
accumulators with a rounded add (chained through one accumulator, 4096 of K erred 50 times
cuBLAS's). A slice holding an infinity or NaN (``__syncthreads_or``) takes the path whose cross
terms see 0 for it. ``vec`` 1 loads 4 neighbouring floats at once (K and N multiples of 4,
16-byte aligned rows). ``split`` > 1 splits K across blocks; each writes a partial product and
``ruda_tf32x3_sum`` adds them in order.

Hand-written, not rendered from the kernel IR: WGSL has no tensor-core instruction, and the
IR no warp-level matrix fragment. It competes in the tuner's ``matmul`` family on cuda beside
ruda's tiled kernel and cuBLAS (``ruda._backends.cuda.tf32x3``).

    >>> src = source(128, 128, 64, 32, 1)
    >>> "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in src
    True
"""

from __future__ import annotations

# (bm, bn, wm, wn): the block's tile and each warp's part of it
SHAPES: tuple[tuple[int, int, int, int], ...] = (
    (128, 128, 64, 32),
    (128, 128, 32, 64),
    (128, 64, 64, 32),
    (64, 128, 32, 64),
    (64, 64, 32, 32),
)
BK = 8
KERNEL = "ruda_tf32x3"
SUM = "ruda_tf32x3_sum"

_BODY = r"""
#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#define NT (32 * WARPS_M * WARPS_N)
#define MT (WM / 16)
#define NTL (WN / 8)
#define AS (BK + 4)
#define BS (BN + 8)
#define A_LOADS (BM * BK / 4 / NT)
#define B_LOADS (BK * BN / 4 / NT)

__device__ __forceinline__ unsigned ruda_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

// x = hi + lo as two TF32 values (an infinity or NaN: hi = x, lo = 0); whether x is finite
__device__ __forceinline__ bool ruda_split(float x, unsigned& hi, unsigned& lo) {
    hi = ruda_tf32(x);
    float h = __uint_as_float(hi);
    const bool fin = isfinite(x);
    if (fin && isinf(h)) {  // rounding up past FLT_MAX: truncate instead
        hi = __float_as_uint(x) & 0xffffe000u;
        h = __uint_as_float(hi);
    }
    lo = fin ? ruda_tf32(x - h) : 0u;
    return fin;
}

// hi where finite, else 0: the cross terms' operand once a slice holds an infinity or NaN
__device__ __forceinline__ unsigned ruda_finite(unsigned h) {
    return (h & 0x7f800000u) == 0x7f800000u ? 0u : h;
}

__device__ __forceinline__ void ruda_mma(float* d, const unsigned* a, const unsigned* b,
                                         const float* c) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
          "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

// 4 floats of row `row` from column `col` on (columns past `end` read as 0)
__device__ __forceinline__ float4 ruda_fetch(const float* __restrict__ p, bool ok,
                                             long long row, int col, int end) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (!ok || col >= end) return v;
    const float* q = p + row + col;
#if VEC
    v = *reinterpret_cast<const float4*>(q);
#else
    v.x = q[0];
    if (col + 1 < end) v.y = q[1];
    if (col + 2 < end) v.z = q[2];
    if (col + 3 < end) v.w = q[3];
#endif
    return v;
}

// the 4 floats of v split into the hi and lo planes at p; whether all are finite
__device__ __forceinline__ bool ruda_stage(float4 v, unsigned* hi, unsigned* lo) {
    uint4 h, l;
    bool fin = ruda_split(v.x, h.x, l.x);
    fin &= ruda_split(v.y, h.y, l.y);
    fin &= ruda_split(v.z, h.z, l.z);
    fin &= ruda_split(v.w, h.w, l.w);
    *reinterpret_cast<uint4*>(hi) = h;
    *reinterpret_cast<uint4*>(lo) = l;
    return fin;
}

extern "C" __global__ void __launch_bounds__(NT) ruda_tf32x3(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
    int M, int N, int K, int lda, int ldb, int kchunk, int split, long long sa, long long sb)
{
    // two buffers of the slices, each as TF32 hi and lo planes
    __shared__ __align__(16) unsigned Ah[2][BM * AS], Al[2][BM * AS];
    __shared__ __align__(16) unsigned Bh[2][BK * BS], Bl[2][BK * BS];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int g = lane >> 2, t = lane & 3;
    const int z = blockIdx.z / split, s = blockIdx.z % split;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int k0 = s * kchunk, kend = min(K, k0 + kchunk);
    A += z * sa;
    B += z * sb;
    C += (long long)blockIdx.z * M * N;  // the output, or this split's partial product

    float4 ra[A_LOADS], rb[B_LOADS];
    float acc[MT][NTL][4];
    const float zero[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NTL; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.f;

    const int tiles = kend > k0 ? (kend - k0 + BK - 1) / BK : 0;
#define LOAD(kb)                                                                        \
    {                                                                                   \
        _Pragma("unroll") for (int i = 0; i < A_LOADS; ++i) {                           \
            int idx = tid + i * NT, row = idx / (BK / 4), c = (idx % (BK / 4)) * 4;     \
            ra[i] = ruda_fetch(A, m0 + row < M, (long long)(m0 + row) * lda, (kb) + c, kend); \
        }                                                                               \
        _Pragma("unroll") for (int i = 0; i < B_LOADS; ++i) {                           \
            int idx = tid + i * NT, row = idx / (BN / 4), c = (idx % (BN / 4)) * 4;     \
            rb[i] = ruda_fetch(B + n0, (kb) + row < kend, (long long)((kb) + row) * ldb, c, \
                               N - n0);                                                 \
        }                                                                               \
    }
#define STORE(buf, fin)                                                                 \
    {                                                                                   \
        _Pragma("unroll") for (int i = 0; i < A_LOADS; ++i) {                           \
            int idx = tid + i * NT, row = idx / (BK / 4), c = (idx % (BK / 4)) * 4;     \
            fin &= ruda_stage(ra[i], &Ah[buf][row * AS + c], &Al[buf][row * AS + c]);   \
        }                                                                               \
        _Pragma("unroll") for (int i = 0; i < B_LOADS; ++i) {                           \
            int idx = tid + i * NT, row = idx / (BN / 4), c = (idx % (BN / 4)) * 4;     \
            fin &= ruda_stage(rb[i], &Bh[buf][row * BS + c], &Bl[buf][row * BS + c]);   \
        }                                                                               \
    }
    bool odd = false;  // the slice in the current buffer holds an infinity or NaN
    if (tiles > 0) {
        bool fin = true;
        LOAD(k0);
        STORE(0, fin);
        odd = __syncthreads_or(!fin);
    } else {
        __syncthreads();
    }
    for (int kt = 0; kt < tiles; ++kt) {
        const int cur = kt & 1;
        if (kt + 1 < tiles) LOAD(k0 + (kt + 1) * BK);
        const unsigned* ah_s = Ah[cur] + wm * WM * AS;
        const unsigned* al_s = Al[cur] + wm * WM * AS;
        const unsigned* bh_s = Bh[cur] + wn * WN;
        const unsigned* bl_s = Bl[cur] + wn * WN;
#pragma unroll
        for (int ks = 0; ks < BK; ks += 8) {
            unsigned ah[MT][4], al[MT][4], bh[NTL][2], bl[NTL][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                const int o = (i * 16 + g) * AS + ks + t;
                const int off[4] = {o, o + 8 * AS, o + 4, o + 8 * AS + 4};
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    ah[i][q] = ah_s[off[q]];
                    al[i][q] = al_s[off[q]];
                }
            }
#pragma unroll
            for (int j = 0; j < NTL; ++j) {
                const int o = (ks + t) * BS + j * 8 + g;
                bh[j][0] = bh_s[o];
                bh[j][1] = bh_s[o + 4 * BS];
                bl[j][0] = bl_s[o];
                bl[j][1] = bl_s[o + 4 * BS];
            }
            if (!odd) {
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int j = 0; j < NTL; ++j) {
                        // small terms first, from 0: the tensor cores' adds truncate, so
                        // each step's sum joins acc with a rounded float32 add
                        float d[4];
                        ruda_mma(d, al[i], bh[j], zero);
                        ruda_mma(d, ah[i], bl[j], d);
                        ruda_mma(d, ah[i], bh[j], d);
#pragma unroll
                        for (int q = 0; q < 4; ++q) acc[i][j][q] += d[q];
                    }
            } else {
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int j = 0; j < NTL; ++j) {
                        unsigned ac[4], bc[2];
#pragma unroll
                        for (int q = 0; q < 4; ++q) ac[q] = ruda_finite(ah[i][q]);
                        bc[0] = ruda_finite(bh[j][0]);
                        bc[1] = ruda_finite(bh[j][1]);
                        float d[4];
                        ruda_mma(d, al[i], bc, zero);
                        ruda_mma(d, ac, bl[j], d);
                        ruda_mma(d, ah[i], bh[j], d);
#pragma unroll
                        for (int q = 0; q < 4; ++q) acc[i][j][q] += d[q];
                    }
            }
        }
        bool fin = true;
        if (kt + 1 < tiles) STORE(cur ^ 1, fin);
        odd = __syncthreads_or(!fin);
    }
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NTL; ++j) {
            const int c = n0 + wn * WN + j * 8 + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = m0 + wm * WM + i * 16 + g + 8 * h;
                if (r >= M) continue;
                float* o = C + (long long)r * N + c;
                if (c < N) o[0] = acc[i][j][2 * h];
                if (c + 1 < N) o[1] = acc[i][j][2 * h + 1];
            }
        }
}

// out[z][i] = the sum over s of part[z * split + s][i], in order of s
extern "C" __global__ void ruda_tf32x3_sum(const float* __restrict__ part,
                                           float* __restrict__ out, long long mn, int split,
                                           long long total) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= total) return;
    long long z = i / mn, r = i - z * mn;
    const float* p = part + z * split * mn + r;
    float acc = p[0];
    for (int q = 1; q < split; ++q) acc += p[q * mn];
    out[i] = acc;
}
"""


def source(bm: int, bn: int, wm: int, wn: int, vec: int) -> str:
    """The module for one block shape ``(bm, bn, wm, wn)`` (one of ``SHAPES``), ``vec`` 1 for
    4-float loads (``vec`` 0: one float at a time, any alignment)."""
    if (bm, bn, wm, wn) not in SHAPES or vec not in (0, 1):
        raise ValueError(f"ruda tf32x3: no kernel for {(bm, bn, wm, wn, vec)}")
    head = f"#define BM {bm}\n#define BN {bn}\n#define BK {BK}\n#define WM {wm}\n#define WN {wn}\n"
    return head + f"#define VEC {vec}\n" + _BODY


def threads(bm: int, bn: int, wm: int, wn: int) -> int:
    """Threads per block of a block shape."""
    return 32 * (bm // wm) * (bn // wn)


__all__ = ["BK", "KERNEL", "SHAPES", "SUM", "source", "threads"]
