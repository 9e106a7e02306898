"""The course's child processes: one protocol to start one with a request, watch it, and hear back.

The parent runs `python -m <entry> '<request as JSON>'` (behind a wrapper such as compute-sanitizer,
if given) in a process group of its own, its stdout and stderr kept in a file. The child answers on a
pipe of its own (`result_channel`): each line is `<nonce> <event as JSON>`, with a nonce the parent
chose, so a kernel's printf (which writes to stdout) cannot forge an event; its last event is
{"event": "done"}. The parent reads the events until "done", kills the group when a deadline passes
(`run`'s `budget`, which `on_event` may renew), and otherwise says how the child ended: a signal, an
exit status, or no report.
"""
from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

FD_ENV, NONCE_ENV = "COURSE_RESULT_FD", "COURSE_RESULT_NONCE"
EXIT_GRACE_S = 30.0  # after "done": time to exit (a wrapper such as compute-sanitizer writes its report)


@dataclass
class Finished:
    """How a child ended: `ended` is "done" (it said so), "timed out" (killed at a deadline) or "died"
    (it exited or was killed without saying "done")."""
    ended: str
    returncode: int
    events: list[dict] = field(default_factory=list)
    output: str = field(default="", repr=False)    # stdout and stderr, the last `keep` characters

    @property
    def how(self) -> str:
        """How the process ended: "was killed by SIGSEGV (signal 11)", "exited with status 1"."""
        from grader.messages import say

        code = self.returncode
        if code >= 0:
            return say("child.exited", code=code)
        try:
            return say("child.killed", name=signal.Signals(-code).name, number=-code)
        except ValueError:
            return say("child.killed_by", number=-code)

    def tail(self, lines: int) -> str:
        return "\n".join(self.output.strip().splitlines()[-lines:])


def command(entry: str, request: dict, wrapper: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The command line that runs module `entry` on `request`, behind `wrapper`."""
    return [*wrapper, sys.executable, "-m", entry, json.dumps(request)]


def run(argv: list[str], *, env: dict[str, str], cwd, budget: float,
        on_event: Callable[[dict], float | None] | None = None, preexec_fn=None,
        keep: int | None = 20000) -> Finished:
    """Run `argv` (from `command`) with `env` (the pipe's number and nonce are added) and wait for it:
    at most `budget` seconds until its next event, or as long as `on_event(event)` says when it returns
    a number. Its process group is killed at a deadline, and whatever is left of it at the end."""
    nonce = secrets.token_hex(16)
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env={**env, FD_ENV: str(write_fd), NONCE_ENV: nonce},
                                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    pass_fds=(write_fd,), start_new_session=True, preexec_fn=preexec_fn)
        finally:
            os.close(write_fd)
        try:
            events, ended = _follow(proc, read_fd, nonce, budget, on_event)
        finally:
            os.close(read_fd)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return Finished(ended, proc.returncode, events, _read_tail(out, keep))


def _follow(proc, read_fd: int, nonce: str, budget: float, on_event) -> tuple[list[dict], str]:
    """The child's events, and how it ended: "done", "timed out" or "died"."""
    events, buffer, done = [], b"", False
    deadline = time.monotonic() + budget
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return events, "done" if done else "timed out"
        ready, _, _ = select.select([read_fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(read_fd, 65536)
        if not chunk:  # every copy of the write end is closed: the child has exited, or is exiting
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                return events, "done" if done else "timed out"
            return events, "done" if done else "died"
        *lines, buffer = (buffer + chunk).split(b"\n")
        for line in lines:
            event = _event(line, nonce)
            if event is None:
                continue
            events.append(event)
            if event.get("event") == "done":
                done, deadline = True, time.monotonic() + EXIT_GRACE_S
            elif on_event is not None:
                renewed = on_event(event)
                if renewed is not None:
                    deadline = time.monotonic() + renewed


def _event(line: bytes, nonce: str) -> dict | None:
    try:
        tag, payload = line.decode().split(" ", 1)
        event = json.loads(payload) if tag == nonce else None
    except (ValueError, UnicodeDecodeError):
        return None
    return event if isinstance(event, dict) else None


def _read_tail(out, keep: int | None) -> str:
    size = out.seek(0, os.SEEK_END)
    out.seek(0 if keep is None else max(0, size - 4 * keep))
    text = out.read().decode(errors="replace")
    return text if keep is None else text[-keep:]


# ---- the child -----------------------------------------------------------------------------------

def result_channel():
    """In a child: `send(**event)`, which reports to the parent on the pipe it passed, with its nonce."""
    fd, nonce = int(os.environ.pop(FD_ENV)), os.environ.pop(NONCE_ENV)
    channel = os.fdopen(fd, "w", buffering=1)
    os.set_inheritable(fd, False)

    def send(**event) -> None:
        channel.write(f"{nonce} {json.dumps(event)}\n")
        channel.flush()

    return send


def main(handler: Callable[[dict, Callable], None]) -> None:
    """A child's `__main__`: `handler(request, send)` with the request from argv, then "done"."""
    send = result_channel()
    handler(json.loads(sys.argv[1]), send)
    send(event="done")
