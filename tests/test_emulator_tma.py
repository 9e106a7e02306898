"""The emulator's mbarrier and TMA (cp.async.bulk.tensor with tensor maps): tiles against numpy, swizzles,
zero fill at the tensor's edge, and the planted mistakes it names (no wait, wrong expect_tx bytes)."""
import numpy as np
import pytest

from grader import emulator, tensor_map
from grader.emulator import tensor_maps
from grader.emulator.backend import EmulatorBackend

def _dev(a):
    return EmulatorBackend().asarray(a)


KERNEL = r"""
#include <course/common.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);
struct alignas(64) TensorMap { unsigned long long v[16]; };

// Loads the box at (row0, col0) with TMA, waits, and writes it back un-swizzled: out[r][c] of ROWS x COLS.
extern "C" __global__ void load_tile(const __grid_constant__ TensorMap tmap, __half* out, int row0, int col0,
                                     int swizzle, int expect) {
  __shared__ alignas(1024) __half tile[ROWS * COLS];
  __shared__ alignas(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned t = (unsigned)__cvta_generic_to_shared(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(expect));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" :: "r"(t), "l"(&tmap), "r"(col0), "r"(row0), "r"(b) : "memory");
  }
#ifndef NO_WAIT
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
               :: "r"(b), "r"(0) : "memory");
#endif
  for (int i = threadIdx.x; i < ROWS * COLS; i += blockDim.x) {
    int r = i / COLS, c = i % COLS;
    int byte = r * COLS * 2 + c * 2;  // un-swizzle: XOR the 16-byte chunk with the 128-byte row
    int mask = swizzle == 128 ? 7 : swizzle == 64 ? 3 : swizzle == 32 ? 1 : 0;
    byte ^= ((byte >> 7) & mask) << 4;
    out[i] = tile[byte / 2];
  }
}
"""


def _load(tmp_path, rows, cols, extra=()):
    path = tmp_path / "tma.cu"
    path.write_text(KERNEL.replace("__half", "unsigned short"))
    return emulator.load(path, (f"-DROWS={rows}", f"-DCOLS={cols}") + tuple(extra))


def _run(mod, a, box, swizzle, row0, col0, expect=None):
    dev = _dev(a)
    out = _dev(np.zeros(box, np.uint16))
    tmap = tensor_maps.encode(dev.ptr, a.shape, a.strides, 2, box, swizzle)
    nbytes = box[0] * box[1] * 2
    mod.get_function("load_tile")((1,), (128,), (tmap, out, np.int32(row0), np.int32(col0), np.int32(swizzle),
                                                  np.int32(nbytes if expect is None else expect)))
    return out.get()


def _reference(a, box, row0, col0):
    ref = np.zeros(box, a.dtype)
    r = a[max(row0, 0):row0 + box[0], max(col0, 0):col0 + box[1]]
    ref[max(-row0, 0):max(-row0, 0) + r.shape[0], max(-col0, 0):max(-col0, 0) + r.shape[1]] = r
    return ref


@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
def test_tile_swizzles_and_edges(tmp_path, swizzle):
    rng = np.random.default_rng()
    cols = swizzle // 2 if swizzle else 24
    mod = _load(tmp_path, 16, cols)
    a = rng.integers(1, 60000, (37, 72), dtype=np.uint16)  # awkward sizes: the last box crosses the edge
    for row0, col0 in ((0, 0), (8, 16), (30, 72 - cols + 8), (-3, -8)):
        np.testing.assert_array_equal(_run(mod, a, (16, cols), swizzle, row0, col0),
                                      _reference(a, (16, cols), row0, col0))


def test_128b_swizzle_lands_permuted(tmp_path):
    """The raw shared layout is the hardware's: chunk index XOR row index (mod 8), by the kernel's
    un-swizzle with swizzle=0 reading a 128B-swizzled tile (a wrong rule would read the tile back)."""
    rng = np.random.default_rng()
    a = rng.integers(1, 60000, (64, 64), dtype=np.uint16)
    mod = _load(tmp_path, 64, 64)
    dev, out = _dev(a), _dev(np.zeros((64, 64), np.uint16))
    tmap = tensor_maps.encode(dev.ptr, a.shape, a.strides, 2, (64, 64), 128)
    mod.get_function("load_tile")((1,), (128,), (tmap, out, np.int32(0), np.int32(0), np.int32(0),
                                                  np.int32(8192)))
    raw = out.get().reshape(64, 8, 8)
    expect = a.reshape(64, 8, 8)[np.arange(64)[:, None], np.arange(8)[None, :] ^ (np.arange(64)[:, None] % 8)]
    np.testing.assert_array_equal(raw, expect)


def test_every_block_swizzles_its_own_shared_addresses(tmp_path):
    """The swizzle follows each block's own shared addresses (the hardware's), not where the emulator
    keeps that block's shared memory: four blocks load the same 128B-swizzled box."""
    rng = np.random.default_rng()
    a = rng.integers(1, 60000, (64, 64), dtype=np.uint16)
    mod = _load(tmp_path, 64, 64)
    dev, out = _dev(a), _dev(np.zeros((64, 64), np.uint16))
    tmap = tensor_maps.encode(dev.ptr, a.shape, a.strides, 2, (64, 64), 128)
    mod.get_function("load_tile")((4,), (128,), (tmap, out, np.int32(0), np.int32(0), np.int32(128),
                                                  np.int32(8192)))
    np.testing.assert_array_equal(out.get(), a)


def test_missing_wait_is_named(tmp_path):
    mod = _load(tmp_path, 16, 24, ("-DNO_WAIT",))
    a = np.ones((16, 24), np.uint16)
    with pytest.raises(emulator.EmulatorFault, match=r"read before the mbarrier wait.*tma.cu:\d+"):
        _run(mod, a, (16, 24), 0, 0, 0)


@pytest.mark.parametrize("expect", [16 * 24 * 2 - 16, 16 * 24 * 2 + 16])
def test_wrong_expect_tx_is_named(tmp_path, expect):
    mod = _load(tmp_path, 16, 24)
    a = np.ones((16, 24), np.uint16)
    with pytest.raises(emulator.EmulatorFault,
                       match=rf"mbarrier never completed.*expected {expect} bytes .*got {16 * 24 * 2}"):
        _run(mod, a, (16, 24), 0, 0, 0, expect)


def test_the_backend_encodes_the_tensor_map(tmp_path, monkeypatch):
    """grader.tensor_map goes through the current backend: on the emulator, the course's own encoding."""
    monkeypatch.setenv("COURSE_BACKEND", "emulator")
    a = _dev(np.arange(64 * 64, dtype=np.float16).reshape(64, 64))
    np.testing.assert_array_equal(tensor_map.tensor_map(a, (32, 64), 128),
                                  tensor_maps.encode(a.ptr, (64, 64), a.strides, 2, (32, 64), 128))


def test_tensor_map_rejects_bad_boxes():
    with pytest.raises(ValueError, match="swizzle span"):
        tensor_map._check((64, 64), (128, 2), 2, (8, 128), 128)
    with pytest.raises(ValueError, match="not one grader.tensor_map"):
        tensor_maps.decode(bytes(128))


STORE_KERNEL = r"""
#include <course/hopper/tma.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);
using namespace course::hopper;

// Two rounds: each fills the 64 x 64 box (128-byte swizzle) with round * 100000 + element index (mod 2^16),
// then thread 0 stores it with TMA at column 64 * round of out [64, 128].
extern "C" __global__ void store_tiles(const __grid_constant__ TensorMap tmap) {
  __shared__ alignas(1024) unsigned short tile[64 * 64];
  for (int round = 0; round < 2; round++) {
#ifndef NO_WAIT
    if (threadIdx.x == 0) bulk_wait_group_read<0>();
#endif
    __syncthreads();
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
      int byte = i * 2;
      byte ^= ((byte >> 7) & 7) << 4;
      tile[byte / 2] = (unsigned short)(round * 100000 + i);
    }
    fence_proxy_async();
    __syncthreads();
    if (threadIdx.x == 0) {
      tma_store_2d(&tmap, tile, 64 * round, 0);
      bulk_commit_group();
    }
  }
  if (threadIdx.x == 0) bulk_wait_group_read<0>();
}

// Ping-pong: warpgroup 0 writes turn[i] then passes the turn (bar.arrive 2, 256); warpgroup 1 waits for it
// (bar.sync 2, 256), reads it, writes its own and passes back (bar.arrive 1); out[i] = what warpgroup 1 saw.
extern "C" __global__ void ping_pong(int* out, int rounds) {
  __shared__ int turn[8];
  const int wg = threadIdx.x / 128;
  for (int i = 0; i < rounds; i++) {
    if (wg == 0) {
#ifndef NO_FIRST_TURN
      if (i > 0) named_barrier_sync(1, 256);
#else
      named_barrier_sync(1, 256);
#endif
      if (threadIdx.x == 0) turn[i] = 100 + i;
      asm volatile("bar.arrive 2, 256;\n" ::: "memory");
    } else {
      named_barrier_sync(2, 256);
      if (threadIdx.x == 128) out[i] = turn[i];
      if (i + 1 < rounds) asm volatile("bar.arrive 1, 256;\n" ::: "memory");
    }
  }
}

// Warpgroups 0 and 1 each meet at their own named barrier (1 and 2), warpgroup 1 after warpgroup 0 wrote
// flag: out[i] = the flag each thread saw.
extern "C" __global__ void named(int* out) {
  __shared__ int flag[2];
  const int wg = threadIdx.x / 128;
  if (threadIdx.x % 128 == 0) flag[wg] = wg + 1;
  named_barrier_sync(1 + wg, 128);
  out[threadIdx.x] = flag[wg];
}
"""


def _store_module(tmp_path, extra=()):
    path = tmp_path / "store.cu"
    path.write_text(STORE_KERNEL)
    return emulator.load(path, tuple(extra))


def test_tma_store_writes_the_unswizzled_box(tmp_path):
    mod = _store_module(tmp_path)
    out = _dev(np.zeros((64, 128), np.uint16))
    tmap = tensor_maps.encode(out.ptr, (64, 128), (256, 2), 2, (64, 64), 128)
    mod.get_function("store_tiles")((1,), (128,), (tmap,))
    i = np.arange(64 * 64).reshape(64, 64)
    expected = np.concatenate([i, 100000 + i], axis=1).astype(np.uint16)
    np.testing.assert_array_equal(out.get(), expected)


def test_a_buffer_written_while_a_tma_store_reads_it_is_named(tmp_path):
    mod = _store_module(tmp_path, ("-DNO_WAIT",))
    out = _dev(np.zeros((64, 128), np.uint16))
    tmap = tensor_maps.encode(out.ptr, (64, 128), (256, 2), 2, (64, 64), 128)
    with pytest.raises(emulator.EmulatorFault, match=r"while a TMA store still reads it.*store.cu:\d+"):
        mod.get_function("store_tiles")((1,), (128,), (tmap,))


def test_named_barriers_meet_per_id(tmp_path):
    """Two warpgroups at bar.sync 1, 128 and bar.sync 2, 128: each waits for its own 128 threads only."""
    mod = _store_module(tmp_path)
    out = _dev(np.zeros(256, np.int32))
    mod.get_function("named")((1,), (256,), (out,))
    np.testing.assert_array_equal(out.get(), np.repeat([1, 2], 128))


def test_bar_arrive_hands_the_turn_over(tmp_path):
    """bar.arrive counts toward the other side's bar.sync without waiting: warpgroup 1 sees each value
    warpgroup 0 wrote before passing the turn (FA3's ping-pong between consumer warpgroups)."""
    mod = _store_module(tmp_path)
    out = _dev(np.zeros(8, np.int32))
    mod.get_function("ping_pong")((2,), (256,), (out, np.int32(5)))
    np.testing.assert_array_equal(out.get()[:5], 100 + np.arange(5))


def test_a_turn_never_given_is_named(tmp_path):
    mod = _store_module(tmp_path, ("-DNO_FIRST_TURN",))
    with pytest.raises(emulator.EmulatorFault, match=r"named barrier [12] never completes.*store.cu:\d+.*0 more passed it"):
        mod.get_function("ping_pong")((1,), (256,), (_dev(np.zeros(8, np.int32)), np.int32(3)))
