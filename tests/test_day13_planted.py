"""Day 13: planted wrong kernels fail with a message that says what is wrong, and the solution passes
(on the emulator without a GPU).

- rope_interleaved that rotates rotate-half pairs inside its chunk ((v[0][j], v[1][j]) instead of
  neighbours), or that uses the element's index for the frequency instead of the pair's: the rotated
  heads are wrong, and the message names the interleaved layout.
- rope (rotate half) with one 2-byte access per element: right values, but the technique check refuses
  it (no 16-byte loads).
- rotate with a sign slip (x2' = x2 c - x1 s): wrong in both layouts.
- jit_cache.py: a key over the joined inputs and every file of the include folders, one with every
  header hashed, one that looks a quoted include up in the include folders only, one that hashes the
  names of the headers it reaches but not their bytes, one that joins the
  options with spaces; a write in place, a write that leaves its temporary file when it fails.
- attention variants: a chunk boundary one key late ((key + 1) / chunk); a prefix-LM mask without the
  causal rule after the prefix (key < prefix only), or whose prefix loses its last token (key < prefix - 1):
  each fails on the mask's table, named by the first wrong (q_pos, key) (on the first three cases).
"""
import re

import pytest

from grader import exercises
from grader.paths import SOLUTIONS

SOLUTION = (SOLUTIONS / "day13" / "rope.cu").read_text()
VARIANTS = (SOLUTIONS / "day13" / "attention_variants.cu").read_text()
CASES = [{"tokens": 31, "heads": 5, "extra_heads": 2, "head_dim": 64, "dtype": "float16", "vec": 4,
          "heads_per_block": 2}]
VEC1 = [{**CASES[0], "vec": 1, "dtype": "bfloat16"}]
VEC2 = [{**CASES[0], "vec": 2, "dtype": "bfloat16"}]  # with vec 1, (v[0][j], v[1][j]) is the right pair


def _planted(*edits: tuple[str, str]) -> str:
    text = SOLUTION
    for old, new in edits:
        assert old in text, f"the solution rope.cu changed: {old!r} not found"
        text = text.replace(old, new)
    return text


HALF_PAIRS = _planted(("    T& e1 = v[2 * j / VEC][2 * j % VEC];\n    T& e2 = v[(2 * j + 1) / VEC][(2 * j + 1) % VEC];",
                       "    T& e1 = v[0][j];\n    T& e2 = v[1][j];"))
ELEMENT_FREQ = _planted(("    rotate<HEAD_DIM>(x1, x2, i0 + j, p, log2_theta);\n    e1 =",
                         "    rotate<HEAD_DIM>(x1, x2, 2 * (i0 + j), p, log2_theta);\n    e1 ="))
SIGN = _planted(("  x2 = x2 * c + x1 * s;", "  x2 = x2 * c - x1 * s;"))
ROPE_BODY = re.compile(r"(  const int i0 = threadIdx.x \* VEC;\n)  course::vec_t<T, VEC> a, b;.*?(  // END EXERCISE)", re.S)
SCALAR = ROPE_BODY.sub(lambda m: m.group(1) + """#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    float x1 = course::to_float(h[i0 + j]), x2 = course::to_float(h[HALF + i0 + j]);
    rotate<HEAD_DIM>(x1, x2, i0 + j, p, log2_theta);
    h[i0 + j] = course::from_float<T>(x1);
    h[HALF + i0 + j] = course::from_float<T>(x2);
  }
""" + m.group(2), SOLUTION, count=1)


@pytest.mark.parametrize("text,cases", [(HALF_PAIRS, CASES), (HALF_PAIRS, VEC2), (ELEMENT_FREQ, VEC1)],
                         ids=["rotate-half-pairs", "rotate-half-pairs-vec2", "element-frequency-vec1"])
def test_wrong_interleaved_pairs_fail(planted, text, cases):
    msg = planted("day13", "rope_interleaved", text, cases=cases)
    assert msg is not None, "a wrong interleaved kernel passed"
    assert "rope rotated heads, interleaved pairs (2i, 2i + 1)" in msg and "rope_interleaved_" in msg, msg


def test_scalar_accesses_fail_the_technique(planted):
    assert SCALAR != SOLUTION and "a.load" not in SCALAR.split("rope_interleaved")[0]
    msg = planted("day13", "rope", SCALAR, cases=CASES)
    assert msg is not None, "rope with 2-byte accesses passed"
    assert "LDG.E.128" in msg and "16-byte vector loads" in msg, msg


@pytest.mark.parametrize("name", ["rope", "rope_interleaved"])
def test_sign_slip_fails_both_layouts(planted, name):
    msg = planted("day13", name, SIGN, cases=CASES)
    assert msg is not None and "rope rotated heads" in msg and "worst" in msg.lower(), msg


@pytest.mark.parametrize("name", ["rope", "rope_interleaved"])
def test_solution_passes(planted, name):
    assert planted("day13", name, SOLUTION, cases=CASES + VEC1) is None


def _variant(old: str, new: str) -> str:
    assert old in VARIANTS, f"the solution attention_variants.cu changed: {old!r} not found"
    return VARIANTS.replace(old, new)


@pytest.mark.parametrize("name,text,says", [
    ("chunked", _variant("return key / chunk == q_pos / chunk;", "return (key + 1) / chunk == q_pos / chunk;"),
     "day13::chunked_visible("),
    ("prefix_lm", _variant("return key < prefix || key <= q_pos;", "return key < prefix;"), "day13::prefix_lm_visible("),
    ("prefix_lm", _variant("return key < prefix || key <= q_pos;", "return key < prefix - 1 || key <= q_pos;"),
     "day13::prefix_lm_visible("),
], ids=["chunk-boundary-late", "prefix-without-causal", "prefix-one-short"])
def test_wrong_masks_fail(planted, name, text, says):
    msg = planted("day13", name, text, cases=exercises.get("day13", name).cases[:3])
    assert msg is not None, f"a wrong {name} mask passed"
    assert says in msg and "returned" in msg and "before any attention" in msg, msg


@pytest.mark.parametrize("name", ["chunked", "prefix_lm"])
def test_variant_solution_passes(planted, name):
    assert planted("day13", name, VARIANTS, cases=exercises.get("day13", name).cases[:3]) is None


def test_a_mask_right_only_where_causal_hides_nothing_fails_in_attention(planted):
    """A chunked mask wrong only where the causal mask hides the key anyway passes the table (those pairs
    do not count) and the attention: the table checks what the kernel uses, no more."""
    text = _variant("return key / chunk == q_pos / chunk;", "return key <= q_pos && key / chunk == q_pos / chunk;")
    assert planted("day13", "chunked", text, cases=exercises.get("day13", "chunked").cases[:3]) is None


# ---- jit_cache.py: keys and writes that look right and are not -------------------------------------
CACHE = (SOLUTIONS / "day13" / "jit_cache.py").read_text()
KEY_BODY = CACHE[CACHE.index("    h = hashlib.sha256()\n\n    def feed"):CACHE.index("    return h.hexdigest()\n")]
WRITE_BODY = CACHE[CACHE.index("    path = Path(path)\n    fd, tmp"):CACHE.rindex("    # END EXERCISE")]


def _cache(key_body: str | None = None, write_body: str | None = None) -> str:
    text = CACHE.replace(KEY_BODY, key_body, 1) if key_body else CACHE
    return text.replace(WRITE_BODY, write_body, 1) if write_body else text


JOINED = _cache('    h = hashlib.sha256((source + " ".join(options) + arch).encode())\n'
                '    for d in include_dirs:\n'
                '        for f in sorted(Path(d).rglob("*")):\n'
                '            h.update(f.read_bytes())\n')
EVERY_HEADER = _cache(KEY_BODY.replace("    visited: set[Path] = set()", "    visited: set[Path] = set()\n"
                                       "    for d in folders:\n        for f in sorted(d.rglob('*.cuh')):\n"
                                       "            h.update(f.read_bytes())"))
NO_BESIDE = _cache(KEY_BODY.replace("([here] if bracket == '\"' and here is not None else []) + folders", "folders"))
NAMES_ONLY = _cache(KEY_BODY.replace('            data = found.read_bytes()\n            feed(b"bytes", data)\n',
                                     '            data = found.read_bytes()\n'))
SPACE_JOINED = _cache(KEY_BODY.replace('    for option in options:\n        feed(b"option", option.encode())\n',
                                       '    feed(b"options", " ".join(options).encode())\n'))
IN_PLACE = _cache(write_body="    with open(path, 'wb') as f:\n        f.write(data)\n")
TMP_LEFT = _cache(write_body=WRITE_BODY.replace("        os.unlink(tmp)\n", ""))


@pytest.mark.parametrize("text,case,says", [
    (JOINED, {"group": "unrelated", "root": "plain"}, "unrelated.cuh (included by nothing) edited: expected the same key"),
    (EVERY_HEADER, {"group": "unrelated", "root": "plain"}, "expected the same key"),
    (NO_BESIDE, {"group": "includes", "root": "plain"}, "inc2/b.cuh (included by a.cuh, beside it) edited: expected a different key"),
    (NAMES_ONLY, {"group": "includes", "root": "plain"}, "a.cuh (included by the source) edited: expected a different key"),
    (SPACE_JOINED, {"group": "framing", "root": "plain"}, 'options ("-DA", "-DB") against ("-DA -DB",): expected a different key'),
], ids=["joined-all-files", "every-header", "quoted-not-beside", "header-names-only", "options-joined"])
def test_wrong_cache_keys_fail(planted, text, case, says):
    assert text != CACHE
    msg = planted("day13", "cache_key", text, cases=[case])
    assert msg is not None and says in msg, msg


@pytest.mark.parametrize("text,case,says", [
    (IN_PLACE, {"check": "failure", "size": 1 << 20}, "no longer holds its old content"),
    (TMP_LEFT, {"check": "failure", "size": 1 << 20}, "the partial temporary file must be removed"),
], ids=["in-place-failure", "temporary-left"])
def test_wrong_writes_fail(planted, text, case, says):
    msg = planted("day13", "write_atomic", text, cases=[case])
    assert msg is not None and says in msg, msg


@pytest.mark.parametrize("name", ["cache_key", "write_atomic"])
def test_cache_solution_passes(planted, name):
    assert planted("day13", name, CACHE) is None
