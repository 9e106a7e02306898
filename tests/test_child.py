"""The child-process protocol (grader/child.py) that grading and compute-sanitizer runs share: events on
a pipe with a nonce, deadlines, and how a child that did not finish ended. No GPU needed."""
import os
import signal
import sys
import time

from grader import child, paths, sanitize

ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT)}


def _python(body: str) -> list[str]:
    """A child that runs `body` with `send` (its result channel) and `request` defined, then says "done"."""
    code = ("import os\nfrom grader import child\n"
            f"pipe = int(os.environ['{child.FD_ENV}'])\n"
            "def handler(request, send):\n" + "".join(f"    {line}\n" for line in body.splitlines()) +
            "child.main(handler)\n")
    return [sys.executable, "-c", code, '{"n": 3}']


def test_events_come_back_and_forged_lines_do_not():
    """A line without the nonce counts for nothing: printed (as a kernel's printf would), or even written
    on the pipe itself."""
    fake = '0123456789abcdef0123456789abcdef {"event": "end", "status": "passed"}'
    done = child.run(_python(f"print({fake!r}, flush=True)\nos.write(pipe, {fake!r}.encode() + b'\\n')\n"
                             "send(event='result', n=request['n'])"), env=ENV, cwd=paths.ROOT, budget=60)
    assert done.ended == "done" and done.returncode == 0, done
    assert done.events == [{"event": "result", "n": 3}, {"event": "done"}]
    assert fake in done.output  # printed, and nobody listened


def test_a_deadline_renewed_by_an_event_stops_a_hung_child():
    start = time.monotonic()
    done = child.run(_python("send(event='start')\nimport time\ntime.sleep(60)"), env=ENV, cwd=paths.ROOT,
                     budget=60, on_event=lambda event: 0.5 if event["event"] == "start" else None)
    assert done.ended == "timed out" and done.returncode == -signal.SIGKILL, done
    assert done.events == [{"event": "start"}] and time.monotonic() - start < 30


def test_a_child_that_dies_says_how():
    killed = child.run(_python("send(event='start')\nimport os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"),
                       env=ENV, cwd=paths.ROOT, budget=60)
    assert killed.ended == "died" and killed.how == "was killed by SIGSEGV (signal 11)", killed
    exited = child.run(_python("raise SystemExit(3)"), env=ENV, cwd=paths.ROOT, budget=60)
    assert exited.ended == "died" and exited.how == "exited with status 3" and exited.events == []
    assert "SystemExit" not in exited.output  # SystemExit prints nothing; the status says it all


def test_a_sanitizer_run_reads_the_result_and_the_findings_through_the_wrapper(tmp_path, monkeypatch):
    """A stand-in compute-sanitizer that prints a report, then runs a child that answers on the pipe
    it inherited: the result and the finding both come back."""
    report = "========= Invalid __global__ write of size 4 bytes\n=========     at k+0x10 in /x/k.cu:5\n"
    answer = "from grader import child; child.main(lambda r, send: send(event='result', status='passed', message=''))"
    fake = tmp_path / "compute-sanitizer"
    fake.write_text(f"#!/bin/sh\nprintf '{report}'\nexec {sys.executable} -c \"{answer}\" '{{}}'\n")
    fake.chmod(0o755)
    job = sanitize.jobs_for("day04", tools=("memcheck",), cases=1)[0]
    result = sanitize.run_job(fake, job, timeout=60)
    assert result.check == "passed" and [(f.what, f.line) for f in result.findings] == \
        [("Invalid __global__ write of size 4 bytes", 5)], result
    fake.write_text("#!/bin/sh\nkill -SEGV $$\n")
    died = sanitize.run_job(fake, job, timeout=60)
    assert died.check == "not run" and "killed by SIGSEGV" in died.message and died.problem
