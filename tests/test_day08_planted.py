"""Day 8's checks against planted wrong kernels: each is derived from the solution by one targeted
replacement, and each must fail with a message that names what is wrong (the solution passes)."""
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY8 = SOLUTIONS / "day08"


def _derive(file: str, old: str, new: str) -> str:
    text = (DAY8 / file).read_text()
    assert text.count(old) == 1, f"{file}: the planted replacement no longer matches the solution: {old!r}"
    return text.replace(old, new)


SCAN = (DAY8 / "scan.cu").read_text()
OWN = {"scan.cuh": (DAY8 / "scan.cuh").read_text()}  # exercise 2's header, beside scan.cu


def _own(old: str, new: str) -> dict[str, str]:
    """scan.cu's header with one planted replacement."""
    return {"scan.cuh": _derive("scan.cuh", old, new)}


def test_solutions_pass(planted):
    for name, file in (("block_scan", "block_scan.cu"), ("scan", "scan.cu"), ("ragged", "ragged.cu")):
        assert planted("day08", name, (DAY8 / file).read_text(), files=OWN) is None, name


# ---- block_scan ---------------------------------------------------------------------------------

def test_warp_scan_without_the_lane_guard_fails(planted):
    """Lanes below d get their own value back from __shfl_up_sync and must not add it."""
    msg = planted("day08", "block_scan", _derive("block_scan.cu", "    if (lane >= d) v += up;\n", "    v += up;\n"))
    assert msg and "warp_inclusive_sum_i32 out" in msg, msg


def test_block_scan_inclusive_offset_fails(planted):
    """The warp-inclusive sum used as the thread's offset counts the thread's own items twice."""
    text = _derive("block_scan.cu", "  const int offset = before + inclusive - sum;\n", "  const int offset = before + inclusive;\n")
    msg = planted("day08", "block_scan", text)
    assert msg and "block_exclusive_sum_i32 out" in msg, msg


def test_block_scan_with_cub_fails_the_technique(planted):
    text = _derive("block_scan.cu", "#include <course/common.cuh>\n",
                   "#include <course/common.cuh>\n#include <cub/warp/warp_scan.cuh>\n")
    text = text.replace('''  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
''', '''  __shared__ cub::WarpScan<int>::TempStorage temp[WARPS];
  cub::WarpScan<int>(temp[threadIdx.x / 32]).InclusiveSum(v, v);
  return v;
''')
    msg = planted("day08", "block_scan", text)
    assert msg and "CUB (write the scans yourself here)" in msg, msg


# ---- scan: the look-back ------------------------------------------------------------------------

def test_volatile_loads_instead_of_acquire_fail_the_technique(planted):
    own = _own('''  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\\n" : "=l"(word) : "l"(status + tile) : "memory");\n''',
               "  word = *reinterpret_cast<const volatile unsigned long long*>(status + tile);\n")
    msg = planted("day08", "scan", SCAN, files=own)
    assert msg and "ld.acquire.gpu.global" in msg, msg


def test_the_finished_lookback_from_the_header_fails_the_technique(planted):
    text = _derive("scan.cu", '#include "scan.cuh"\n', "#include <course/scan.cuh>\n")
    msg = planted("day08", "scan", text)
    assert msg and "the course's finished look-back" in msg, msg


def test_summing_past_the_nearest_prefix_fails(planted):
    """All 32 lanes added even when a window holds an inclusive prefix: earlier tiles count twice."""
    msg = planted("day08", "scan", SCAN, files=_own("const int last = p ? __ffs(p) - 1 : 31;", "const int last = 31;"))
    assert msg and "look-back's exclusive prefix" in msg, msg


def test_looking_back_one_window_only_fails(planted):
    """Stopping after 32 predecessors without an inclusive prefix among them misses the earlier tiles."""
    msg = planted("day08", "scan", SCAN, files=_own("      if (p) break;\n", "      break;\n"))
    assert msg and "look-back's exclusive prefix" in msg, msg


def test_never_publishing_the_inclusive_prefix_fails(planted):
    own = _own("    if (lane == 0) publish_tile(status, tile, TILE_PREFIX, static_cast<uint32_t>(exclusive + aggregate));\n", "")
    msg = planted("day08", "scan", SCAN, files=own)
    assert msg and "flags after the look-back" in msg, msg


# ---- ragged -------------------------------------------------------------------------------------

def test_running_total_returned_after_the_tile_fails(planted):
    text = _derive("ragged.cu", "    const int prefix = total;\n    total += tile_total;\n    return prefix;\n",
                   "    total += tile_total;\n    return total;\n")
    msg = planted("day08", "ragged", text)
    assert msg and "build_indptr" in msg, msg


def test_find_sequence_with_a_strict_comparison_fails(planted):
    """indptr[mid] < row puts a sequence's first row into the sequence before it."""
    text = _derive("ragged.cu", "if (static_cast<int64_t>(indptr[mid]) <= row) {", "if (static_cast<int64_t>(indptr[mid]) < row) {")
    msg = planted("day08", "ragged", text)
    assert msg and "gather_rows out" in msg, msg
