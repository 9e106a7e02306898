"""Day 14: planted wrong kernels fail with a message that says what is wrong, and the solutions pass
(on the emulator without a GPU).

- append_kv as one loop that picks the destination per vector: right values, but its stores compile
  to 4-byte STG.E, and the technique check (16-byte stores) refuses it.
- append_kv that forgets the request's offset in the cache (slot = pos[b] * kv_size): request b > 0
  writes into request 0's history.
- rope_append_kv that rotates only the q heads (k copied as it is), or that uses the interleaved pairs:
  the new k row (or q) is wrong, and the message names it.
- binding.py whose rmsnorm does not check `out`, or checks it only after the launch: a wrong `out` is
  accepted (or written); one that ignores `out`: the result is not in the caller's buffer.
- rmsnorm_ffi.py whose function does not check weight's shape: a later check refuses the call, with a
  message that does not name the weight (needs apache-tvm-ffi and nvcc; without a GPU too).
"""
import pytest

from grader.exercises import day14
from grader.paths import SOLUTIONS

SOLUTION = {name: (SOLUTIONS / "day14" / f"{name}.cu").read_text() for name in ("append_kv", "rope_append_kv")}
SOLUTION["binding"] = (SOLUTIONS / "day14" / "binding.py").read_text()
SOLUTION["rmsnorm_ffi"] = (SOLUTIONS / "day14" / "rmsnorm_ffi.py").read_text()
CASES = [{"batch": 3, "max_len": 33, "qo_heads": 4, "kv_heads": 2, "head_dim": 64, "dtype": "float16"}]


def _planted(name: str, *edits: tuple[str, str]) -> str:
    text = SOLUTION[name]
    for old, new in edits:
        assert old in text, f"the solution {name}.cu changed: {old!r} not found"
        text = text.replace(old, new)
    return text


ONE_LOOP = _planted("append_kv", ("""  copy_vectors(q + b * q_size, row, q_size);
  copy_vectors(k_cache + slot, row + q_size, kv_size);
  copy_vectors(v_cache + slot, row + q_size + kv_size, kv_size);""", """  for (int i = threadIdx.x * VEC; i < q_size + 2 * kv_size; i += blockDim.x * VEC) {
    course::vec_t<T, VEC> v;
    v.load(row + i);
    if (i < q_size) {
      v.store(q + b * q_size + i);
    } else if (i < q_size + kv_size) {
      v.store(k_cache + slot + (i - q_size));
    } else {
      v.store(v_cache + slot + (i - q_size - kv_size));
    }
  }"""))
NO_REQUEST_OFFSET = _planted("append_kv", ("(b * max_len + pos[b]) * static_cast<int64_t>(kv_size)",
                                           "pos[b] * static_cast<int64_t>(kv_size)"))
Q_ONLY = _planted("rope_append_kv", ("item < (qo_heads + kv_heads) * per_head", "item < qo_heads * per_head"),
                  ("  for (int i = threadIdx.x * VEC; i < kv_size; i += blockDim.x * VEC) {\n    course::vec_t<T, VEC> v;\n"
                   "    v.load(row + q_size + kv_size + i);\n    v.store(v_cache + slot + i);\n  }",
                   "  for (int i = threadIdx.x * VEC; i < kv_size; i += blockDim.x * VEC) {\n    course::vec_t<T, VEC> v;\n"
                   "    v.load(row + q_size + kv_size + i);\n    v.store(v_cache + slot + i);\n"
                   "    v.load(row + q_size + i);\n    v.store(k_cache + slot + i);\n  }"))
INTERLEAVED = _planted("rope_append_kv", (
    "      const float x1 = course::to_float(a[j]), x2 = course::to_float(c[j]);\n"
    "      a[j] = course::from_float<T>(x1 * cs - x2 * sn);\n      c[j] = course::from_float<T>(x2 * cs + x1 * sn);",
    "      if (j % 2) continue;\n"
    "      const float x1 = course::to_float(a[j]), x2 = course::to_float(a[j + 1]);\n"
    "      a[j] = course::from_float<T>(x1 * cs - x2 * sn);\n      a[j + 1] = course::from_float<T>(x2 * cs + x1 * sn);"))


def test_one_loop_append_fails_the_technique(planted):
    msg = planted("day14", "append_kv", ONE_LOOP, cases=CASES)
    assert msg is not None, "append_kv with 4-byte stores passed"
    assert "STG.E.128" in msg and "16-byte vector" in msg, msg


def test_missing_request_offset_fails(planted):
    msg = planted("day14", "append_kv", NO_REQUEST_OFFSET, cases=CASES)
    assert msg is not None, "append_kv writing every request into request 0's rows passed"
    assert "append_kv k_cache rows before pos[b] (the history)" in msg or "row pos[b]" in msg, msg


@pytest.mark.parametrize("text,what", [(Q_ONLY, "rope_append_kv rotated k_cache row pos[b] (the new k)"),
                                       (INTERLEAVED, "rope_append_kv rotated q")], ids=["k-not-rotated", "interleaved"])
def test_wrong_rotation_fails(planted, text, what):
    msg = planted("day14", "rope_append_kv", text, cases=CASES)
    assert msg is not None, "a wrong rope_append_kv passed"
    assert what in msg, msg


@pytest.mark.parametrize("name", ["append_kv", "rope_append_kv"])
def test_solution_passes(planted, name):
    assert planted("day14", name, SOLUTION[name], cases=CASES + [{**CASES[0], "dtype": "bfloat16"}]) is None


OUT_CHECK = """    if out is not None:
        specs.append((ops.describe("out", out), ("rows", "d")))
    dims = ops.check(specs, ops.HALF)"""
OUT_NOT_CHECKED = _planted("binding", (OUT_CHECK, "    dims = ops.check(specs, ops.HALF)"))
LAUNCH = """        kernel((dims["rows"],), (256,), (result, xc, as_cupy(weight), np.int32(dims["d"]), np.float32(eps)))"""
CHECKED_AFTER_LAUNCH = _planted("binding", (OUT_CHECK, "    dims = ops.check(specs, ops.HALF)"),
                                (LAUNCH, LAUNCH + """
    if out is not None:
        ops.check([(tx, ("rows", "d")), (ops.describe("out", out), ("rows", "d"))], ops.HALF)"""))
OUT_IGNORED = _planted("binding", ("if out is None else as_cupy(out)", ""),
                       ("return out if out is not None else to_caller(result, tx)", "return to_caller(result, tx)"))
ERROR_CASE = {"wrong": "out_shape", "rows": 5, "d": 64}


def test_unchecked_out_is_caught(planted):
    msg = planted("day14", "binding_errors", OUT_NOT_CHECKED, cases=[ERROR_CASE])
    assert msg is not None and "accepted without an error" in msg, msg


def test_checking_after_the_launch_is_caught(planted):
    msg = planted("day14", "binding_errors", CHECKED_AFTER_LAUNCH, cases=[ERROR_CASE])
    assert msg is not None and "a kernel was launched before the arguments were checked" in msg, msg


def test_ignored_out_is_caught(planted):
    msg = planted("day14", "binding", OUT_IGNORED, cases=[{"rows": 3, "d": 1000}])
    assert msg is not None and "must return out" in msg, msg


@pytest.mark.parametrize("name, cases", [("binding", [{"rows": 3, "d": 1000}]), ("binding_errors", [ERROR_CASE])])
def test_binding_solution_passes(planted, name, cases):
    assert planted("day14", name, SOLUTION["binding"], cases=cases) is None


NO_WEIGHT_CHECK = _planted("rmsnorm_ffi", ("""  require(weight.ndim() == 1 && weight.size(0) == d, "weight",
          "has shape " + shape_of(weight) + "; expected [d] with d = " + std::to_string(d) + " (from x)");
""", ""))


@pytest.mark.skipif(bool(day14.why_no_ffi()), reason=day14.why_no_ffi() or "")
def test_unchecked_weight_shape_is_caught(planted):
    msg = planted("day14", "rmsnorm_ffi", NO_WEIGHT_CHECK, cases=[{"rows": 5, "d": 64, "dtype": "float16"}])
    assert msg is not None and "with a weight of the wrong size" in msg and "x must be on a CUDA device" in msg, msg
