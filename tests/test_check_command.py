"""`python -m grader check dayNN`: each exercise graded by the locked-down child directly (no pytest
child for correctness; pytest only for a GPU's perf ratio), one table row per exercise, the first failing
case kept for `grader debug`."""
from grader import cli, isolation, paths, progress


def test_check_grades_in_the_child_without_pytest(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(progress, "FILE", tmp_path / "progress.json")
    monkeypatch.setattr(progress, "FAILURES", tmp_path / "failures.json")
    monkeypatch.delenv(paths.KERNELS_ENV, raising=False)
    monkeypatch.delenv(paths.SOURCE_DIR_ENV, raising=False)

    def no_pytest(*args, **kwargs):
        raise AssertionError(f"a pytest child was started: {args}")

    monkeypatch.setattr(isolation, "run_child", no_pytest)
    assert cli.main(["check", "day13"]) == 1  # the stubs
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines()
            if line.startswith("day13/") and line.split()[1].isdigit()}
    assert rows["day13/cache_key"][1:5] == ["0", "5", "0", "FAILED"], rows
    assert "day13/cache_key (FAILED): group=inputs-root=plain: NotImplementedError" in out, out
    assert progress.last_failure("day13/cache_key")["case"] == {"group": "inputs", "root": "plain"}
    assert progress.load()["day13/write_atomic"]["status"] == "FAILED"


def test_check_of_the_solutions_passes_and_records_nothing(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(progress, "FILE", tmp_path / "progress.json")
    monkeypatch.setattr(isolation, "run_child", lambda *a, **k: (_ for _ in ()).throw(AssertionError("pytest")))
    assert cli.main(["check", "day02", "--solutions"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("day02/") and line.split()[1].isdigit()]
    assert len(rows) == 3 and all(r[4] == "passed" for r in rows), out
    assert not (tmp_path / "progress.json").exists()
