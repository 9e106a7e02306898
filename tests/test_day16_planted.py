"""Day 16: planted wrong kernels, each derived from the solution by one targeted change, must fail with a
message a student understands; the solution passes. The mistakes of a FlashAttention-3 kernel: a running
output not rescaled when the max grows, no running max at all (caught only by large logits), P packed into
the wrong fragment registers, a ping-pong whose first turn is never given (a deadlock, named), the softmax
read before its wgmma completed, and the overlap left out (correct, but the technique check fails). The
ladder's rungs: each rung's technique check refuses the rung below it (the serial schedule as rung 2, rung
2's schedule as rung 3)."""
import pytest

from grader import stubs
from grader.paths import SOLUTIONS

SOURCE = SOLUTIONS / "day16" / "attention_wgmma.cu"
SMALL = [{"heads": 2, "seq": 200, "head_dim": 64, "causal": False}]
SOFTMAX, SERIAL, OVERLAP, PINGPONG = range(4)  # the solution's exercise regions, in order
RUNG_LINES = {"attention_wgmma_serial": "COURSE_RUNG(attention_wgmma_serial, SERIAL)\n",
              "attention_wgmma_overlap": "COURSE_RUNG(attention_wgmma_overlap, OVERLAP)\n",
              "attention_wgmma": "COURSE_RUNG(attention_wgmma, PINGPONG)"}


def only(text: str, rung: str) -> str:
    """The file with the kernels of one rung alone (the others' instantiations dropped): a third of the
    compile time, and the exercise launches no other."""
    for name, line in RUNG_LINES.items():
        assert line in text, f"the rung's kernels are no longer instantiated by {line!r}"
        if name != rung:
            text = text.replace(line, "")
    return text


def plant(old: str, new: str, rung: str = "attention_wgmma") -> str:
    text = SOURCE.read_text()
    assert old in text, f"the planted change no longer applies: {old!r}"
    return only(text.replace(old, new), rung)


def rung_as(lower: int, higher: int) -> str:
    """The solution with region `higher`'s code replaced by region `lower`'s (a rung's schedule written
    where the next rung's belongs)."""
    lines = SOURCE.read_text().splitlines()
    found = stubs.regions("\n".join(lines))
    assert len(found) == 4, "the solution's regions changed: softmax, serial, overlap, ping-pong"
    low, high = found[lower], found[higher]
    return "\n".join(lines[:high.start + 1] + lines[low.start + 1:low.end] + lines[high.end:]) + "\n"


def test_the_solution_passes(planted):
    assert planted("day16", "attention_wgmma", only(SOURCE.read_text(), "attention_wgmma"), cases=SMALL) is None


RESCALE = ("      if (D == 64 || __any_sync(0xffffffffu, corr[0] != 1.f || corr[1] != 1.f)) {  // d 128: a max moved in "
           "the warp\n"
           "#pragma unroll\n        for (int i = 0; i < D / 2; i++) acc_o[i] *= corr[(i % 4) / 2];\n      }\n")
# logits growing along the keys: the running max moves past SLACK (4) tile after tile (normal scores
# rarely move it after the first tile, where O is still 0, so a missing rescale needs these to show)
GROWING = [{"heads": 1, "seq": 400, "head_dim": 64, "causal": False, "logits": "rising"}]


def test_an_output_not_rescaled_is_caught(planted):
    text = plant(RESCALE + "    };", "    };")
    msg = planted("day16", "attention_wgmma", text, cases=GROWING)
    assert msg and "attention_wgmma_d64 out" in msg, msg


def test_a_vote_that_never_rescales_at_d128_is_caught(planted):
    """The warp's vote (d 128) that never fires: O is never brought to a moved max; rising logits move it
    tile after tile, so the d 128 output is wrong."""
    text = plant(RESCALE + "    };", RESCALE.replace("__any_sync(0xffffffffu, corr[0] != 1.f || corr[1] != 1.f)",
                                                     "__any_sync(0xffffffffu, false)") + "    };")
    cases = [{"heads": 1, "seq": 300, "head_dim": 128, "causal": False, "logits": "rising"}]
    msg = planted("day16", "attention_wgmma", text, cases=cases)
    assert msg and "attention_wgmma_d128 out" in msg, msg


def test_a_serial_output_not_rescaled_is_caught(planted):
    text = plant(RESCALE + "      issue_pv(j, p);", "      issue_pv(j, p);", "attention_wgmma_serial")
    msg = planted("day16", "attention_wgmma_serial", text, cases=GROWING)
    assert msg and "attention_wgmma_serial_d64 out" in msg, msg


def test_a_softmax_without_its_running_maximum_fails_only_on_large_logits(planted):
    """exp(s) with nothing subtracted (and so nothing to rescale): exact for scores of N(0, 1), which never
    overflow; the cases of large logits growing along the keys make it inf, then NaN."""
    text = plant("      base[h] = m_new == -inf ? 0.f : m_new;\n      corr[h] = ptx_exp2(m_run[h] - base[h]);",
                 "      base[h] = 0.f;\n      corr[h] = 1.f;")
    assert planted("day16", "attention_wgmma", text, cases=SMALL) is None  # the hole the large logits close
    large = [{"heads": 1, "seq": 150, "head_dim": 64, "causal": False, "logits": "falling"}]
    msg = planted("day16", "attention_wgmma", text, cases=large)
    assert msg and "attention_wgmma_d64 out" in msg and "NaN" in msg, msg


def test_p_in_the_wrong_fragment_registers_is_caught(planted):
    text = plant("pp[(i / 4) / 2][2 * ((i / 4) % 2) + h]", "pp[(i / 4) / 2][2 * h + (i / 4) % 2]")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "attention_wgmma_d64 out" in msg, msg


def test_a_first_turn_never_given_is_named(planted):
    text = plant('    if (warpgroup == 2) asm volatile("bar.arrive 8, 256;\\n" ::: "memory");\n', "")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "named barrier" in msg and "never completes" in msg, msg


def test_the_softmax_before_its_wgmma_completed_is_caught(planted):
    """ptxas serialises the wgmma whose accumulators are read early (no DEPBAR 0x1 in the SASS, named by
    the technique check); the emulator would name the read ("still in flight")."""
    text = plant("      pass_turn();\n      wgmma_wait<1>();\n      softmax(j + 1, pn);",
                 "      pass_turn();\n      softmax(j + 1, pn);\n      wgmma_wait<1>();")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and ("still in flight" in msg or "0x1" in msg), msg


def test_no_overlap_fails_on_the_technique(planted):
    text = plant("      wgmma_wait<1>();\n      softmax(j + 1, pn);",
                 "      wgmma_wait<0>();\n      softmax(j + 1, pn);")
    msg = planted("day16", "attention_wgmma", text, cases=SMALL)
    assert msg and "0x1" in msg, msg


def test_the_serial_schedule_does_not_pass_as_rung_2(planted):
    """Rung 1's schedule is correct where rung 2's belongs, but has no wgmma group in flight during the
    softmax: rung 2's technique check names the missing WARPGROUP.DEPBAR.LE gsb0, 0x1."""
    msg = planted("day16", "attention_wgmma_overlap", only(rung_as(SERIAL, OVERLAP), "attention_wgmma_overlap"),
                  cases=SMALL)
    assert msg and "no wgmma_wait<1>" in msg and "attention_wgmma_overlap_d64" in msg, msg


def test_the_overlap_schedule_does_not_pass_as_rung_3(planted):
    """Rung 2's schedule where rung 3's belongs: correct and overlapped, but the warpgroups never take
    turns: rung 3's technique check names the missing BAR.ARV."""
    msg = planted("day16", "attention_wgmma", only(rung_as(OVERLAP, PINGPONG), "attention_wgmma"), cases=SMALL)
    assert msg and "no BAR.ARV" in msg and "no wgmma_wait<1>" not in msg, msg


def test_a_wait_that_only_names_the_overlap_fails_on_the_technique(planted):
    """wgmma_wait<1> then wgmma_wait<0> straight away, then the softmax: correct, and the SASS shows
    WARPGROUP.DEPBAR.LE gsb0, 0x1, but no exponential runs while P V does: rung 2's technique check asks
    for the MUFU.EX2 between the two waits."""
    text = plant("      wgmma_wait<1>();\n      softmax(j + 1, pn);\n      wgmma_wait<0>();",
                 "      wgmma_wait<1>();\n      wgmma_wait<0>();\n      softmax(j + 1, pn);", "attention_wgmma_overlap")
    msg = planted("day16", "attention_wgmma_overlap", text, cases=SMALL)
    assert msg and "no softmax (MUFU.EX2) between wgmma_wait<1> and wgmma_wait<0>" in msg and "no wgmma_wait<1>" not in msg, msg
    assert "attention_wgmma_overlap_d64" in msg and "\n" not in msg.strip(), msg
