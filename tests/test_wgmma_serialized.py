"""A wgmma kernel that ptxas serialized is refused by the technique check (grader/technique.py), naming
the cause ptxas gave. When ptxas cannot keep wgmma.mma_async asynchronous it waits for each one before the
next instruction and says so in its log (a performance advisory: "(C7510) Potential Performance Loss:
wgmma.mma_async instructions are serialized due to ..."); the kernel still shows HGMMA, so it passed
every SASS pattern, though it forfeits what days 15 and 16 teach. Compile-only (NVRTC for sm_90a and
nvdisasm): no GPU and no emulator run."""
import re

import pytest

from grader import exercises, paths, sass, technique
from test_module_texts_zh import chinese

DAY15 = paths.SOLUTIONS / "day15"
CALL = "wgmma pipeline crossing function boundary at a function call"
#: What ptxas printed for the planted kernel below (NVRTC 13.0, -arch=sm_90a), after "ptxas info    : ".
NOTE = ("(C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
        f"{CALL} in the function 'wgmma_tile_f16'")


def _wgmma_exercises():
    """Every exercise of days 15 and 16 whose technique requires wgmma (HGMMA or QGMMA in its SASS)."""
    return [ex for day in ("day15", "day16") for ex in exercises.day_exercises(day)
            if any("GMMA" in p for t in ex.technique for p in t.require)]


def _planted(tmp_path):
    """Day 15's wgmma_tile.cu with its wgmma wrapper kept out of line (__noinline__): the wgmma pipeline then
    crosses a function call, and ptxas serializes it (C7510). Correct results, HGMMA in the SASS."""
    text = (DAY15 / "wgmma_tile.cu").read_text()
    old = "__device__ __forceinline__ void wgmma_m64n64k16"
    assert old in text, "the planted change no longer applies"
    path = tmp_path / "wgmma_tile.cu"
    path.write_text(text.replace(old, "__device__ __noinline__ void wgmma_m64n64k16"))
    return path


def test_ptxas_says_it_serialized_the_planted_kernel(tmp_path):
    compiled, code, _ = sass.load(_planted(tmp_path), technique.ARCH)
    assert compiled.arch == "sm_90a"
    assert any(line.startswith("ptxas info") and line.endswith(NOTE) for line in compiled.log.splitlines()), \
        compiled.log
    assert any(sass.opcode(line).startswith("HGMMA") for line in code["wgmma_tile_f16"])  # the SASS patterns pass
    assert ("C7510", CALL, "wgmma_tile_f16") in technique.serialized(compiled.log)


def test_the_notes_ptxas_writes_are_read():
    log = "\n".join([
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'",
        "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
        "insufficient register resources for the wgmma pipeline in the function '_Z1kPf'",
        "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non "
        "wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline stage in "
        "the function 'k2'",
        "ptxas info    : (C7519) warpgroup.arrive is injected in around line 593 by compiler to allow use of registers "
        "in GMMA in function 'k'",
        "ptxas info    : (C7599) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
        "some new reason"])
    assert technique.serialized(log) == [
        ("C7511", "insufficient register resources for the wgmma pipeline", "_Z1kPf"),
        ("C7515", "non wgmma instructions defining accumulator registers of a wgmma between start and end of the "
                  "pipeline stage", "k2"),
        ("C7599", "some new reason", "")]
    assert technique.serialized("ptxas info    : Used 90 registers") == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_serialized_wgmma_is_refused_with_its_cause(tmp_path, monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    monkeypatch.chdir(paths.ROOT)
    ex = exercises.get("day15", "wgmma_tile")
    with pytest.raises(AssertionError) as e:
        technique.check(ex, _planted(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and "wgmma_tile_f16" in msg and "wgmma_tile_bf16" in msg and "C7510" in msg, msg
    if lang == "en":
        assert "ptxas serialized the wgmma.mma_async of" in msg and CALL in msg, msg
    else:
        assert "串行化" in msg and "跨过了函数边界" in msg and chinese(msg), msg


def test_a_note_on_another_exercises_kernel_is_not_this_ones():
    """attention_wgmma.cu holds the three rungs of day 16: a note on the serial rung's kernel refuses that rung
    only; a note on a device function (not a kernel of the file) refuses the kernels graded."""
    log = ("ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
           f"{CALL} in the function '{{}}'")
    entries = ["attention_wgmma_serial_d64", "attention_wgmma_d64"]
    serial = log.format("attention_wgmma_serial_d64")
    assert technique._serialized(serial, ["attention_wgmma_d64"], entries) == []
    assert len(technique._serialized(serial, ["attention_wgmma_serial_d64"], entries)) == 1
    assert len(technique._serialized(log.format("_Z9my_helperRA64_f"), ["attention_wgmma_d64"], entries)) == 1


def test_only_a_wgmma_technique_reads_the_note(tmp_path):
    path = _planted(tmp_path)
    other = technique.Technique(why="anything", require=(r"EXIT",))
    assert technique._problems(path, [other], None) == []
    wgmma = technique.Technique(why="wgmma", require=(r"HGMMA",))
    assert any(CALL in p for p in technique._problems(path, [wgmma], None))


@pytest.mark.parametrize("ex", _wgmma_exercises(), ids=lambda ex: ex.key)
def test_the_solutions_keep_wgmma_asynchronous(ex):
    compiled = sass.load(paths.SOLUTIONS / ex.day / ex.source, technique.ARCH)[0]
    assert compiled.arch == "sm_90a"
    assert technique.serialized(compiled.log) == [], compiled.log
    technique.check(ex, paths.SOLUTIONS / ex.day / ex.source)


def test_every_wgmma_exercise_is_covered():
    assert {ex.key for ex in _wgmma_exercises()} == {
        "day15/wgmma_tile", "day15/gemm_wgmma", "day15/gemm_persistent", "day15/gemm_fp8",
        "day16/attention_wgmma_serial", "day16/attention_wgmma_overlap", "day16/attention_wgmma",
        "day16/attention_wgmma_causal"}


#: The wgmma call of day 15's slice loop, where the planted variants below change it.
_CALL = "      wgmma_m64n64k16<T>(acc, make_descriptor(base_a + 32 * s), make_descriptor(base_b + 32 * s));\n"
#: What ptxas printed (NVRTC 13.0, -arch=sm_90a) for each wgmma of the touching variant, then for the branching one.
WAIT_NOTE = ("(C7517) warpgroup.wait is injected in around line {} by compiler to allow use of registers defined by "
             "GMMA in function 'wgmma_tile_f16'")
ARRIVE_NOTE = ("(C7519) warpgroup.arrive is injected in around line {} by compiler to allow use of registers in GMMA "
               "in function 'wgmma_tile_f16'")


def _variant(tmp_path, new):
    text = (DAY15 / "wgmma_tile.cu").read_text()
    assert _CALL in text, "the planted change no longer applies"
    path = tmp_path / "wgmma_tile.cu"
    path.write_text(text.replace(_CALL, new))
    return path


def _touching(tmp_path):
    """An instruction reading and writing an accumulator between two wgmma of one group (before wait_group):
    ptxas waits for each wgmma at once (C7517; WARPGROUP.DEPBAR after every HGMMA)."""
    return _variant(tmp_path, _CALL + '      asm volatile("add.f32 %0, %0, 0f00000000;\\n" : "+f"(acc[0]));\n')


def _branching(tmp_path):
    """Each wgmma behind a data-dependent branch: ptxas only adds a warpgroup.arrive (a fence) before each
    (C7519); no wait between them, the HGMMA still overlap."""
    return _variant(tmp_path, "      if (k > 64 + 16 * s)\n" + _CALL)


def _notes(log, code):
    return [line for line in log.splitlines() if f"({code})" in line]


def test_ptxas_injects_a_wait_for_an_accumulator_touched_before_wait_group(tmp_path):
    compiled, code, _ = sass.load(_touching(tmp_path), technique.ARCH)
    notes = _notes(compiled.log, "C7517")
    assert notes and all(re.fullmatch(r"ptxas info\s+: " + re.escape(WAIT_NOTE).replace(r"\{\}", r"\d+"), n)
                         or "wgmma_tile_bf16" in n for n in notes), compiled.log
    ops = [sass.opcode(line) for line in code["wgmma_tile_f16"]]
    gmma = [i for i, op in enumerate(ops) if op.startswith("HGMMA")]
    assert all(any(op.startswith("WARPGROUP.DEPBAR") for op in ops[i:j]) for i, j in zip(gmma, gmma[1:])), ops
    assert ("C7517", technique.INJECTED_WAIT, "wgmma_tile_f16") in technique.serialized(compiled.log)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_injected_wait_is_refused_with_its_cause(tmp_path, monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    monkeypatch.chdir(paths.ROOT)
    with pytest.raises(AssertionError) as e:
        technique.check(exercises.get("day15", "wgmma_tile"), _touching(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and "wgmma_tile_f16" in msg and "wgmma_tile_bf16" in msg and "C7517" in msg, msg
    assert msg.count("C7517") == 1, msg  # one clause for the four notes of each kernel
    if lang == "en":
        assert "before wgmma.wait_group" in msg and "injected a wait" in msg, msg
    else:
        assert "插入了等待" in msg and chinese(msg), msg


def test_an_injected_arrive_is_only_a_fence(tmp_path):
    """C7519 (an arrive, no wait): the wgmma stay asynchronous, so the note is not a refusal."""
    compiled, code, _ = sass.load(_branching(tmp_path), technique.ARCH)
    assert _notes(compiled.log, "C7519") and not _notes(compiled.log, "C7517"), compiled.log
    assert any(re.fullmatch(r"ptxas info\s+: " + re.escape(ARRIVE_NOTE).replace(r"\{\}", r"\d+"), n)
               for n in _notes(compiled.log, "C7519")), compiled.log
    ops = [sass.opcode(line) for line in code["wgmma_tile_f16"]]
    gmma = [i for i, op in enumerate(ops) if op.startswith("HGMMA")]
    assert not any(op.startswith("WARPGROUP.DEPBAR") for op in ops[gmma[0]:gmma[-1]]), ops
    assert technique.serialized(compiled.log) == []


def test_the_injected_wait_note_is_read():
    log = "\n".join(["ptxas info    : " + WAIT_NOTE.format(210), "ptxas info    : " + WAIT_NOTE.format(234),
                     "ptxas info    : " + ARRIVE_NOTE.format(228)])
    assert technique.serialized(log) == [("C7517", technique.INJECTED_WAIT, "wgmma_tile_f16")] * 2


@pytest.mark.parametrize("ex", _wgmma_exercises(), ids=lambda ex: ex.key)
def test_no_solution_gets_a_wait_injected(ex):
    log = sass.load(paths.SOLUTIONS / ex.day / ex.source, technique.ARCH)[0].log
    assert "warpgroup.wait is injected" not in log and "(C7517)" not in log, log
