"""Day 16: planted wrong kernels, each derived from the solution by one targeted change, must fail with a
message a student understands; the solution passes. The mistakes of a FlashAttention-3 kernel: a running
output not rescaled when the max grows, P packed into the wrong fragment registers, a ping-pong whose
first turn is never given (a deadlock, named), the softmax read before its wgmma completed, and the
overlap left out (correct, but the technique check fails)."""
import pytest

from grader.paths import SOLUTIONS

SOURCE = SOLUTIONS / "day16" / "attention_wgmma.cu"
SMALL = [{"heads": 2, "seq": 200, "head_dim": 64, "causal": False}]


def plant(old: str, new: str) -> str:
    text = SOURCE.read_text()
    assert old in text, f"the planted change no longer applies: {old!r}"
    return text.replace(old, new)


def test_the_solution_passes(planted):
    assert planted("day16", "attention_wgmma", SOURCE.read_text(), cases=SMALL) is None


def test_an_output_not_rescaled_is_caught(planted):
    text = plant("    for (int i = 0; i < D / 2; i++) acc_o[i] *= corr[(i % 4) / 2];\n  };", "  };")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "attention_wgmma_d64 out" in msg, msg


def test_p_in_the_wrong_fragment_registers_is_caught(planted):
    text = plant("pp[(i / 4) / 2][2 * ((i / 4) % 2) + h]", "pp[(i / 4) / 2][2 * h + (i / 4) % 2]")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "attention_wgmma_d64 out" in msg, msg


def test_a_first_turn_never_given_is_named(planted):
    text = plant('  if (warpgroup == 2) asm volatile("bar.arrive 8, 256;\\n" ::: "memory");\n', "")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "named barrier" in msg and "never completes" in msg, msg


def test_the_softmax_before_its_wgmma_completed_is_caught(planted):
    """ptxas serialises the wgmma whose accumulators are read early (no DEPBAR 0x1 in the SASS, named by
    the technique check); the emulator would name the read ("still in flight")."""
    text = plant("    pass_turn();\n    wgmma_wait<1>();\n    softmax(j + 1, pn);", "    pass_turn();\n    softmax(j + 1, pn);\n    wgmma_wait<1>();")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and ("still in flight" in msg or "0x1" in msg), msg


def test_no_overlap_fails_on_the_technique(planted):
    text = plant("    wgmma_wait<1>();\n    softmax(j + 1, pn);", "    wgmma_wait<0>();\n    softmax(j + 1, pn);")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "0x1" in msg, msg
