"""Every public command, given bad input, says what is wrong in one line on stderr and exits non-zero,
never with a traceback. The commands come from the parser, so a command added later is covered too;
a positional argument of a name not in BAD below fails the test until it says what a bad value is."""
import argparse
import subprocess
import sys

import pytest

from grader import cli, paths

# a good value of each positional argument (so that one argument at a time is wrong), and bad ones;
# {tmp}/... are made by the `where` fixture
GOOD = {"day": "day02", "exercise": "silu_and_mul", "file": "solutions/day02/silu_and_mul.cu",
        "target": "day02", "course_dir": "{tmp}/new-course", "days": "day01", "question": "1"}
BAD = {"day": ["day99", "day2x"],
       "exercise": ["nope"],
       "file": ["nope.cu", "{tmp}", "{tmp}/notes.txt", "{tmp}/empty.cu", "{tmp}/binary.cu"],
       "target": ["day99", "nope.cu", "{tmp}", "{tmp}/notes.txt"],
       "course_dir": ["{tmp}/notes.txt"],
       "days": ["day99"],
       "question": ["99", "0", "x"]}


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


COMMANDS = _commands()


def _positionals(parser) -> list[argparse.Action]:
    return [a for a in parser._actions if not a.option_strings]


def _good_args(parser) -> list[str]:
    return [GOOD[a.dest] for a in _positionals(parser) if a.required or a.nargs == "*"]


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad-input")
    (tmp / "notes.txt").write_text("not CUDA\n")
    (tmp / "empty.cu").write_text("// no kernel here\n")
    (tmp / "binary.cu").write_bytes(bytes(range(256)) * 4)
    return lambda args: [a.replace("{tmp}", str(tmp)) for a in args]


def _assert_one_line(done, args):
    said = f"python -m grader {' '.join(args)}: exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    assert done.returncode != 0, said
    assert "Traceback" not in done.stdout + done.stderr, said
    assert len(done.stderr.strip().splitlines()) == 1, said


def _in_process(args, capsys):
    """cli.main in this process: argparse's errors exit before any command runs."""
    try:
        code = cli.main(args)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def _subprocess(args):
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True,
                          cwd=paths.ROOT, timeout=120, stdin=subprocess.DEVNULL)


def test_every_positional_argument_has_bad_values():
    unknown = {f"{name} {a.dest}" for name, p in COMMANDS.items() for a in _positionals(p) if a.dest not in BAD}
    assert not unknown, f"tell GOOD and BAD in {__file__} what these arguments take: {sorted(unknown)}"


def _option_cases():
    for name, p in COMMANDS.items():
        good = _good_args(p)
        yield pytest.param([name, *good, "--no-such-option"], id=f"{name}-unknown-option")
        if any(a.required for a in _positionals(p)):
            yield pytest.param([name], id=f"{name}-missing-argument")
        for a in p._actions:
            if not a.option_strings or a.dest == "help":
                continue
            flag = a.option_strings[-1]
            if a.choices is not None:
                yield pytest.param([name, *good, flag, "bogus"], id=f"{name}{flag}-bogus")
            elif getattr(a.type, "__qualname__", "").startswith("_number."):  # a number
                yield pytest.param([name, *good, flag, "-1"], id=f"{name}{flag}--1")
                yield pytest.param([name, *good, flag, "many"], id=f"{name}{flag}-many")
    yield pytest.param(["frobnicate"], id="unknown-command")


@pytest.mark.parametrize("args", list(_option_cases()))
def test_bad_options_get_one_line(args, where, capsys):
    args = where(args)
    _assert_one_line(_in_process(args, capsys), args)


def _value_cases():
    for name, p in COMMANDS.items():
        for i, a in enumerate(_positionals(p)):
            for bad in BAD.get(a.dest, []):
                args = [bad if j == i else GOOD[b.dest] for j, b in enumerate(_positionals(p))
                        if j == i or b.required or b.nargs == "*"]
                yield pytest.param([name, *args], id=f"{name}-{a.dest}={bad.replace('{tmp}', 'tmp')}")


@pytest.mark.parametrize("args", list(_value_cases()))
def test_bad_values_get_one_line(args, where, capsys):
    """The command itself refuses the value (in this process: a child per case would cost seconds)."""
    args = where(args)
    _assert_one_line(_in_process(args, capsys), args)


@pytest.mark.parametrize("args", [["check", "day99"], ["sass", "{tmp}/binary.cu"],
                                  ["check", "day02", "--timeout", "-5"]], ids=" ".join)
def test_as_a_student_runs_it(args, where):
    """`python -m grader` itself, in a child: the same one line, no traceback."""
    args = where(args)
    _assert_one_line(_subprocess(args), args)


def test_compile_says_a_file_without_kernels_defines_none(where, capsys):
    done = _in_process(where(["compile", "{tmp}/empty.cu"]), capsys)
    assert done.returncode == 1 and "defines no kernel" in done.stdout and " ok " not in done.stdout


def test_sass_prints_a_compile_error_once(tmp_path, capsys):
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __global__ void k(float* x) { x[0] = undefined_name; }\n')
    done = _in_process(["sass", str(bad)], capsys)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count('identifier "undefined_name" is undefined') == 1, done.stderr


def test_release_again_without_force_names_the_flag(tmp_path, capsys):
    (tmp_path / "source" / "day01").mkdir(parents=True)  # what an earlier release left
    done = _in_process(["release", str(tmp_path), "day01"], capsys)
    _assert_one_line(done, ["release"])
    assert "already exists" in done.stderr and "--force" in done.stderr


def test_stubs_prompt_ended_with_ctrl_d_keeps_the_file(monkeypatch, capsys):
    from grader import stubs

    class ClosedTerminal:
        def isatty(self):
            return True

        def readline(self):
            return ""  # Ctrl-D

    answers = []

    def generate(day, force, ask):
        answers.append(ask(paths.DAYS / "day02" / "silu_and_mul.cu"))
        return []

    monkeypatch.setattr(sys, "stdin", ClosedTerminal())
    monkeypatch.setattr(stubs, "generate", generate)
    assert cli.main(["stubs", "day02"]) == 0
    assert answers == [False]
    assert "Traceback" not in capsys.readouterr().err
