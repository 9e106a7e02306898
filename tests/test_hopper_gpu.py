"""The emulator's Hopper kernels (wgmma, mbarrier + TMA) on a real sm_90a GPU: the same CUDA sources as
test_emulator_wgmma.py and test_emulator_tma.py, built for the architecture-specific target through
grader.device, against the same numpy references (the driver encodes the tensor maps here)."""
import numpy as np
import pytest

from grader import device, tensor_map
from test_emulator_tma import KERNEL as TMA_KERNEL, STORE_KERNEL, _reference
from test_emulator_wgmma import K, MN_LAYOUTS, mn_inputs, mn_source, source as wgmma_source

pytestmark = pytest.mark.gpu
HEADER = "#include <course/common.cuh>\nCOURSE_REQUIRE_ARCH_SPECIFIC(90);\n"


@pytest.fixture(autouse=True)
def _hopper():
    if device.why_not_hardware():
        pytest.skip(f"needs a CUDA GPU: {device.why_not_hardware()}")
    if device.properties()["sm"] != "sm_90":
        pytest.skip(f"needs an sm_90 GPU (sm_90a instructions); this is {device.properties()['sm']}")


def _load(tmp_path, text, options=()):
    path = tmp_path / "hopper.cu"
    path.write_text(text)
    return device.load(path, tuple(options))


@pytest.mark.parametrize("n, dtype, swizzle, a_regs", [
    (8, "f16", 0, False), (64, "f16", 0, False), (128, "bf16", 1, False), (256, "f16", 1, False),
    (64, "bf16", 1, True)])
def test_wgmma_matches_numpy(tmp_path, n, dtype, swizzle, a_regs):
    mod = _load(tmp_path, HEADER + wgmma_source(n, dtype, swizzle, a_regs=a_regs))
    rng = np.random.default_rng()
    a = rng.standard_normal((64, K)).astype(np.float32)
    b = rng.standard_normal((n, K)).astype(np.float32)
    c = rng.standard_normal((64, n)).astype(np.float32)
    if dtype == "f16":
        abits, bbits = a.astype(np.float16).view(np.uint16), b.astype(np.float16).view(np.uint16)
        a64, b64 = (x.view(np.float16).astype(np.float64) for x in (abits, bbits))
    else:
        abits, bbits = ((x.view(np.uint32) >> 16).astype(np.uint16) for x in (a, b))
        a64, b64 = ((x.astype(np.uint32) << 16).view(np.float32).astype(np.float64) for x in (abits, bbits))
    da, db, dd = device.asarray(abits), device.asarray(bbits), device.asarray(c.copy())
    mod.get_function("wg")((1,), (128,), (da, db, dd, np.int32(1)))
    device.synchronize()
    got, want = device.to_host(dd), a64 @ b64.T + c.astype(np.float64)
    err = np.abs(got - want) / (1 + np.abs(want))
    assert err.max() < 1e-5, f"worst {np.unravel_index(err.argmax(), err.shape)}: {err.max():.2e}"


@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
def test_tma_tiles_swizzles_and_edges(tmp_path, swizzle):
    rng = np.random.default_rng()
    cols = swizzle // 2 if swizzle else 24
    mod = _load(tmp_path, TMA_KERNEL.replace("__half", "unsigned short"), ("-DROWS=16", f"-DCOLS={cols}"))
    bits = rng.integers(1, 30000, (37, 72), dtype=np.uint16)  # finite float16 bit patterns
    a = device.asarray(bits.view(np.float16))
    tmap = tensor_map.tensor_map(a, (16, cols), swizzle)
    for row0, col0 in ((0, 0), (8, 16), (30, 72 - cols + 8), (-3, -8)):
        out = device.asarray(np.full((16, cols), 0xFFFF, np.uint16))  # poisoned: NaN bits
        mod.get_function("load_tile")((1,), (128,), (tmap, out, np.int32(row0), np.int32(col0),
                                                      np.int32(swizzle), np.int32(16 * cols * 2)))
        device.synchronize()
        np.testing.assert_array_equal(device.to_host(out), _reference(bits, (16, cols), row0, col0))


def test_wgmma_b_mn_major_descriptor(tmp_path):
    """The emulator's reading of an MN-major B descriptor (128-byte swizzle): LBO from one 64-column block
    to the next, SBO from one 8-row group of k to the next. Both readings run; the hardware must agree
    with the emulator's and not with the other."""
    a, b, want = mn_inputs()
    close = {}
    for layout in MN_LAYOUTS:
        path = tmp_path / f"mn_{layout}.cu"
        path.write_text(HEADER + mn_source(layout))
        mod = device.load(path)
        d = device.asarray(np.zeros((64, 128), np.float32))
        mod.get_function("wg_mn")((1,), (128,), (device.asarray(a.view(np.uint16)), device.asarray(b.view(np.uint16)), d))
        device.synchronize()
        close[layout] = bool(np.allclose(device.to_host(d), want, rtol=1e-5, atol=1e-5))
    assert close == {"lbo_blocks": True, "lbo_8k": False}, close


def test_bar_arrive_ping_pong_and_tma_store(tmp_path):
    """The emulator's bar.arrive / named bar.sync hand-over and its TMA store, on the hardware."""
    path = tmp_path / "store.cu"
    path.write_text(STORE_KERNEL)
    mod = device.load(path)
    out = device.asarray(np.zeros(8, np.int32))
    mod.get_function("ping_pong")((2,), (256,), (out, np.int32(5)))
    device.synchronize()
    np.testing.assert_array_equal(device.to_host(out)[:5], 100 + np.arange(5))
    c = device.asarray(np.zeros((64, 128), np.uint16).view(np.float16))
    mod.get_function("store_tiles")((1,), (128,), (tensor_map.tensor_map(c, (64, 64), 128),))
    device.synchronize()
    i = np.arange(64 * 64).reshape(64, 64)
    np.testing.assert_array_equal(device.to_host(c).view(np.uint16), np.concatenate([i, 100000 + i], axis=1).astype(np.uint16))
