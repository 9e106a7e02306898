"""wgmma on the emulator: kernels for sm_90a stage A (64 x K) and B (N x K) in shared memory in the canonical
K-major layout (computed here in CUDA, from the PTX ISA's rules, not from grader/emulator/ops/tensor_cores.py),
issue fence / mma_async / commit / wait and write D, compared with a float64 numpy matmul."""
import numpy as np
import pytest

from grader import emulator
from grader.emulator import EmulatorFault

K = 32

SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef @T@ T;
#define N @N@
#define K @K@
#define SWIZZLE @SW@      // 0: none, 1: 128-byte
#define DESC_SWIZZLE @DSW@ // the swizzle mode put in the descriptors
#define A_REGS @AREGS@
#define EARLY @EARLY@
#define NOFENCE @NOFENCE@
#define NOPROXY @NOPROXY@  // no fence.proxy.async after the stores
#define A_AFTER_FENCE @AAF@  // A's registers written after wgmma.fence

// byte offset of element (r, c) of a rows x K K-major tile whose shared address is `base`
__device__ unsigned tile_offset(unsigned base, int rows, int r, int c) {
    if (SWIZZLE) {  // 128-byte rows of 64 elements, 8-row atoms of 1024 bytes, 16-byte chunks XOR row % 8
        unsigned a = base + (r / 8) * 1024 + (r % 8) * 128 + c * 2;
        return (a ^ (((a >> 7) & 7) << 4)) - base;
    }
    // core matrices of 8 rows x 16 bytes; per 16-wide k step: 2 core matrices in k (LBO = 128),
    // 8-row groups 256 bytes apart (SBO); k steps rows * 32 bytes apart
    int kk = c / 16, cc = c % 16;
    return kk * rows * 32 + (r / 8) * 256 + (r % 8) * 16 + (cc / 8) * 128 + (cc % 8) * 2;
}

__device__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32) | ((unsigned long long)DESC_SWIZZLE << 62);
}

extern "C" __global__ void wg(const T* a, const T* b, float* d, int scale_d) {
    __shared__ __align__(1024) T sa[64 * (SWIZZLE ? 64 : K)];  // 128-byte swizzle: 64-element rows
    __shared__ __align__(1024) T sb[N * (SWIZZLE ? 64 : K)];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    unsigned ba = (unsigned)__cvta_generic_to_shared(sa), bb = (unsigned)__cvta_generic_to_shared(sb);
    for (int i = t; i < 64 * K; i += 128) sa[tile_offset(ba, 64, i / K, i % K) / 2] = a[i];
    for (int i = t; i < N * K; i += 128) sb[tile_offset(bb, N, i / K, i % K) / 2] = b[i];
#if !NOPROXY
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the stores, visible to the async proxy
#endif
    __syncthreads();
    float acc[N / 2];
#pragma unroll
    for (int j = 0; j < N / 2; j++) {
        int row = 16 * warp + lane / 4 + 8 * ((j % 4) / 2), col = 8 * (j / 4) + 2 * (lane % 4) + j % 2;
        acc[j] = d[row * N + col];
    }
#if !NOFENCE
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
#pragma unroll
    for (int kk = 0; kk < K / 16; kk++) {
        unsigned step_a = SWIZZLE ? 32 * kk : 64 * 32 * kk, step_b = SWIZZLE ? 32 * kk : N * 32 * kk;
        unsigned long long db = desc(bb + step_b, SWIZZLE ? 16 : 128, SWIZZLE ? 1024 : 256);
        int sd = kk > 0 ? 1 : scale_d;
#if A_REGS
#if A_AFTER_FENCE
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
        unsigned r[4];
        for (int i = 0; i < 4; i++) {
            int row = 16 * warp + lane / 4 + 8 * (i % 2), col = 16 * kk + 2 * (lane % 4) + 8 * (i / 2);
            __half2 h;
            T lo = sa[tile_offset(ba, 64, row, col) / 2], hi = sa[tile_offset(ba, 64, row, col + 1) / 2];
            r[i] = (unsigned)*(unsigned short*)&lo | ((unsigned)*(unsigned short*)&hi << 16);
        }
#if !A_AFTER_FENCE
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %@SDI@, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n@N@k16.f32.@PT@.@PT@ {@ACC@}, "
                     "{%@AR0@, %@AR1@, %@AR2@, %@AR3@}, %@DB@, p, 1, 1, 0;\n}\n"
                     : @OUTS@ : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "l"(db), "r"(sd));
#else
        unsigned long long da = desc(ba + step_a, SWIZZLE ? 16 : 128, SWIZZLE ? 1024 : 256);
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %@SD@, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n@N@k16.f32.@PT@.@PT@ {@ACC@}, %@DA@, %@DB@, "
                     "p, 1, 1, 0, 0;\n}\n"
                     : @OUTS@ : "l"(da), "l"(db), "r"(sd));
#endif
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#if EARLY
    d[t] = acc[0];
#endif
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
    for (int j = 0; j < N / 2; j++) {
        int row = 16 * warp + lane / 4 + 8 * ((j % 4) / 2), col = 8 * (j / 4) + 2 * (lane % 4) + j % 2;
        d[row * N + col] = acc[j];
    }
}
"""


def source(n, dtype="f16", swizzle=0, desc_swizzle=None, a_regs=False, early=False, no_fence=False,
           no_proxy_fence=False, a_after_fence=False):
    m = n // 2
    subs = {"T": "__half" if dtype == "f16" else "__nv_bfloat16", "PT": dtype, "N": n, "K": K, "SW": swizzle,
            "DSW": (1 if swizzle else 0) if desc_swizzle is None else desc_swizzle,
            "AREGS": int(a_regs), "EARLY": int(early), "NOFENCE": int(no_fence), "NOPROXY": int(no_proxy_fence),
            "AAF": int(a_after_fence),
            "ACC": ", ".join(f"%{j}" for j in range(m)), "OUTS": ", ".join(f'"+f"(acc[{j}])' for j in range(m)),
            "DA": m, "DB": m + 1, "SD": m + 2, "AR0": m, "AR1": m + 1, "AR2": m + 2, "AR3": m + 3}
    if a_regs:
        subs.update(DB=m + 4, SDI=m + 5)
    text = SOURCE
    for key, val in subs.items():
        text = text.replace(f"@{key}@", str(val))
    return text


def run(monkeypatch, n, dtype="f16", scale_d=1, c_fill=None, **kw):
    monkeypatch.setenv(emulator.ARCH_ENV, "sm_90a")
    mod = emulator.load_source(source(n, dtype, **kw), "wgmma.cu")
    rng = np.random.default_rng()
    a = rng.standard_normal((64, K)).astype(np.float32)
    b = rng.standard_normal((n, K)).astype(np.float32)
    c = rng.standard_normal((64, n)).astype(np.float32) if c_fill is None else np.full((64, n), c_fill, np.float32)
    if dtype == "f16":
        ah, bh = a.astype(np.float16), b.astype(np.float16)
        a64, b64 = ah.astype(np.float64), bh.astype(np.float64)
        da, db = emulator.DeviceArray.from_host(ah.view(np.uint16)), emulator.DeviceArray.from_host(bh.view(np.uint16))
    else:
        abits, bbits = ((x.view(np.uint32) >> 16).astype(np.uint16) for x in (a, b))
        a64 = (abits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        b64 = (bbits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        da, db = emulator.DeviceArray.from_host(abits), emulator.DeviceArray.from_host(bbits)
    dd = emulator.DeviceArray.from_host(c.copy())
    mod.get_function("wg")((1,), (128,), (da, db, dd, np.int32(scale_d)))
    want = a64 @ b64.T + (c.astype(np.float64) if scale_d else 0)
    return dd.get(), want


@pytest.mark.parametrize("n, dtype, swizzle, scale_d", [
    (8, "f16", 0, 1), (64, "bf16", 0, 0), (64, "f16", 1, 1), (256, "bf16", 1, 0), (256, "f16", 0, 1)])
def test_mma_async_from_shared_memory(monkeypatch, n, dtype, swizzle, scale_d):
    got, want = run(monkeypatch, n, dtype, scale_d, swizzle=swizzle)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fill", [-np.inf, np.nan])
def test_a_wgmma_that_does_not_accumulate_ignores_what_d_held(monkeypatch, fill):
    """scale-d 0: D = A B, whatever D held (the hardware does not read it): a score register left at -inf
    by a masked softmax must not make NaN (0 x -inf)."""
    got, want = run(monkeypatch, 64, "f16", 0, c_fill=fill, swizzle=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_mma_async_with_a_from_registers(monkeypatch):
    got, want = run(monkeypatch, 64, "f16", 1, swizzle=1, a_regs=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_reading_the_accumulator_before_wait_group_is_named(monkeypatch):
    with pytest.raises(EmulatorFault, match=r"(?s)wgmma.cu:\d+.*still in flight.*wait_group"):
        run(monkeypatch, 8, early=True)


def test_a_descriptor_with_the_wrong_swizzle_gives_a_wrong_result(monkeypatch):
    got, want = run(monkeypatch, 64, "f16", 1, swizzle=1, desc_swizzle=2)  # 64B instead of 128B
    assert not np.allclose(got, want, rtol=1e-3, atol=1e-3)


def test_a_missing_fence_before_mma_async_is_named(monkeypatch):
    with pytest.raises(EmulatorFault, match=r"(?s)wgmma.cu:\d+.*no wgmma.fence"):
        run(monkeypatch, 8, no_fence=True)


MN_SOURCE = r"""
#include <cuda_fp16.h>
// D (64 x 128) = A (64 x K, K-major) @ B^T with B (128 x K) stored MN-major: K rows of 128 elements, as
// two 64-column blocks in the 128-byte swizzle (block nb at nb * K * 128 bytes); trans-b = 1.
#define N 128
#define K @K@
__device__ unsigned swz(unsigned base, unsigned off) {
    unsigned a = base + off;
    return (a ^ (((a >> 7) & 7) << 4)) - base;
}
__device__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((unsigned long long)(sbo >> 4) << 32) | (1ull << 62);
}
extern "C" __global__ void wg_mn(const __half* a, const __half* b, float* d) {
    __shared__ __align__(1024) __half sa[64 * 64];
    __shared__ __align__(1024) __half sb[N * K];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    unsigned ba = (unsigned)__cvta_generic_to_shared(sa), bb = (unsigned)__cvta_generic_to_shared(sb);
    for (int i = t; i < 64 * K; i += 128) {
        int r = i / K, c = i % K;
        sa[swz(ba, (r / 8) * 1024 + (r % 8) * 128 + c * 2) / 2] = a[i];
    }
    for (int i = t; i < N * K; i += 128) {  // b[n][k] -> block n / 64, k-row k, column n % 64
        int k = i / N, n = i % N;
        sb[swz(bb, (n / 64) * K * 128 + k * 128 + (n % 64) * 2) / 2] = b[n * K + k];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float acc[64];
    for (int j = 0; j < 64; j++) acc[j] = 0.f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < K / 16; kk++) {
        unsigned long long da = desc(ba + 32 * kk, 16, 1024);
        unsigned long long db = desc(bb + 16 * 128 * kk, @LBO@, @SBO@);
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {@ACC@}, %64, %65, p, 1, 1, 0, 1;\n}\n"
                     : @OUTS@ : "l"(da), "l"(db));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int j = 0; j < 64; j++) {
        int row = 16 * warp + lane / 4 + 8 * ((j % 4) / 2), col = 8 * (j / 4) + 2 * (lane % 4) + j % 2;
        d[row * N + col] = acc[j];
    }
}
"""
MN_LAYOUTS = {"lbo_blocks": (K * 128, 1024), "lbo_8k": (1024, K * 128)}  # (LBO, SBO) in the B descriptor


def mn_source(layout: str) -> str:
    lbo, sbo = MN_LAYOUTS[layout]
    return (MN_SOURCE.replace("@K@", str(K)).replace("@LBO@", str(lbo)).replace("@SBO@", str(sbo))
            .replace("@ACC@", ", ".join(f"%{j}" for j in range(64)))
            .replace("@OUTS@", ", ".join(f'"+f"(acc[{j}])' for j in range(64))))


def mn_inputs():
    rng = np.random.default_rng()
    a = rng.standard_normal((64, K)).astype(np.float16)
    b = rng.standard_normal((128, K)).astype(np.float16)
    return a, b, a.astype(np.float64) @ b.astype(np.float64).T


def test_stores_without_fence_proxy_async_are_named(monkeypatch):
    with pytest.raises(EmulatorFault, match=r"(?s)without fence.proxy.async: .*wgmma.cu:\d+.*wgmma.cu:\d+"):
        run(monkeypatch, 8, no_proxy_fence=True)


def test_a_registers_written_after_wgmma_fence_are_named(monkeypatch):
    with pytest.raises(EmulatorFault, match=r"(?s)wgmma.cu:\d+: its A register .* written after the last "
                                            r"wgmma.fence"):
        run(monkeypatch, 64, "f16", 1, swizzle=1, a_regs=True, a_after_fence=True)


def test_mma_async_with_b_mn_major(monkeypatch):
    """B MN-major (trans-b = 1), 128-byte swizzle, two 64-column blocks: LBO steps from one block of 64
    columns to the next, SBO from one 8-row group of k to the next (checked on the H100 by
    test_hopper_gpu.py, which runs the same source)."""
    monkeypatch.setenv(emulator.ARCH_ENV, "sm_90a")
    a, b, want = mn_inputs()
    got = {}
    for layout in MN_LAYOUTS:
        mod = emulator.load_source(mn_source(layout), "wgmma_mn.cu")
        d = emulator.DeviceArray.from_host(np.zeros((64, 128), np.float32))
        mod.get_function("wg_mn")((1,), (128,), (emulator.DeviceArray.from_host(a.view(np.uint16)),
                                                 emulator.DeviceArray.from_host(b.view(np.uint16)), d))
        got[layout] = d.get()
    np.testing.assert_allclose(got["lbo_blocks"], want, rtol=1e-5, atol=1e-5)
    assert not np.allclose(got["lbo_8k"], want, rtol=1e-3, atol=1e-3)
