"""The sandbox of student Python (grader/sandbox.py): what a process inside can see and do.

Each test runs a snippet in the sandbox, as the grader does for a notebook's kernel and for a Python
exercise, and reads back what the snippet found (JSON on stdout). Skipped where no sandbox can be made
(no user namespaces); the grading then says so (tests/test_grading_cheats.py).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from grader import paths, sandbox

LOOK = r"""
import ctypes, json, os, resource, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
seen = {"uid": os.getuid(), "pid": os.getpid(), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "cap_eff": status["CapEff"].strip(), "cap_bnd": status["CapBnd"].strip(),
        "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(), "own": open("mine").read(),
        "solutions": os.listdir(sys.argv[1]),
        "hidden": os.listdir(sys.argv[2]) if os.path.isdir(sys.argv[2]) else [],
        "home": os.environ["HOME"], "env": sorted(os.environ),
        "limits": {n: resource.getrlimit(getattr(resource, n))[0]
                   for n in ("RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CPU")}}
open("mine", "w").write("changed inside")
seen["umount"] = libc.umount2(sys.argv[1].encode(), 2)
seen["remount"] = libc.mount(None, b"/", None, 32 | 4096, None)
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000 | 0x00020000) == 0:  # root of a nested user namespace: its mounts stay locked
    open("/proc/self/setgroups", "w").write("deny")
    open("/proc/self/uid_map", "w").write(f"0 {uid} 1")
    open("/proc/self/gid_map", "w").write(f"0 {gid} 1")
    seen["nested_umount"] = libc.umount2(sys.argv[1].encode(), 2)
    seen["nested_remount"] = libc.mount(None, os.path.dirname(sys.argv[1]).encode(), None, 32 | 4096, None)
    seen["nested_solutions"] = os.listdir(sys.argv[1])
seen["kill_parent"] = 0
try:
    os.kill(os.getppid(), 9)
except OSError:
    seen["kill_parent"] = -1
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[3])), timeout=2).sendall(b"out")
    seen["connected"] = True
except OSError:
    seen["connected"] = False
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def available():
    why = sandbox.unavailable()
    if why:
        pytest.skip(f"no sandbox here: {why}")


def _run(tmp_path, code: str, *args: str, hide=()):
    own = tmp_path / "own"
    own.mkdir(exist_ok=True)
    (own / "mine").write_text("mine")
    argv = sandbox.wrapper(own, hide=hide, cpu=60, memory=None) + ["-c", code, *args]
    return subprocess.run(argv, capture_output=True, text=True, cwd=own, timeout=120,
                          env={**os.environ, "PYTHONPATH": paths.python_path(), "SECRET_TOKEN": "x"})


def test_inside_the_sandbox(tmp_path, available):
    hidden = tmp_path / "course"
    (hidden / "submitted").mkdir(parents=True)
    (hidden / "gradebook.db").write_text("grades")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    done = _run(tmp_path, LOOK, str(paths.SOLUTIONS), str(hidden), str(listener.getsockname()[1]), hide=[hidden])
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["uid"] != 0 and seen["pid"] == 2 and seen["pids"] == [1, 2], seen  # its own PID namespace
    assert seen["cap_eff"] == seen["cap_bnd"] == "0000000000000000" and seen["no_new_privs"] == "1"
    assert seen["seccomp"] == ("2" if os.uname().machine in sandbox._DENIED else "0")
    shown = ["include"] if sandbox._shown_in_hidden(None) else []  # the headers course headers include
    assert seen["solutions"] == shown and seen["hidden"] == [] and seen["own"] == "mine"
    assert (tmp_path / "own" / "mine").read_text() == "mine"  # its folder was a copy
    assert seen["home"] == sandbox.HOME and "SECRET_TOKEN" not in seen["env"]
    assert seen["limits"]["RLIMIT_NPROC"] == sandbox.PROCESSES and seen["limits"]["RLIMIT_FSIZE"] == 256 << 20
    assert 0 < seen["limits"]["RLIMIT_CPU"] <= 60
    assert seen["umount"] == seen["remount"] == -1  # no capability
    assert seen.get("nested_umount", -1) == seen.get("nested_remount", -1) == -1  # the mounts are locked
    assert seen.get("nested_solutions", []) == []
    assert not seen["connected"]
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


def test_no_process_outlives_the_sandbox(tmp_path, available):
    token = f"course-sandbox-daemon-{os.getpid()}"
    code = ("import os, subprocess, sys\nif os.fork() == 0:\n    os.setsid()\n"
            f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{token}'], "
            "start_new_session=True)\n    os._exit(0)\nos.wait()\n")
    done = _run(tmp_path, code)
    assert done.returncode == 0, done.stderr[-2000:]
    time.sleep(0.5)
    alive = []
    for proc in os.listdir("/proc"):
        try:
            if token in open(f"/proc/{proc}/cmdline", "rb").read().decode(errors="replace"):
                alive.append(proc)
        except OSError:
            continue
    for pid in alive:
        os.kill(int(pid), 9)
    assert not alive, "a daemon outlived its sandbox"


def test_no_sandbox_is_said_in_one_line(monkeypatch):
    monkeypatch.setenv(sandbox.SANDBOX_ENV, "off")
    sandbox.unavailable.cache_clear()
    try:
        assert sandbox.unavailable() == f"turned off ({sandbox.SANDBOX_ENV}=off)"
    finally:
        sandbox.unavailable.cache_clear()
    done = subprocess.run([sys.executable, "-m", "grader.sandbox", "--own", "/nonexistent-folder", "--", "-c", "1"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": paths.python_path()})
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_packages_on_pythonpath_are_seen_read_only(tmp_path, available):
    """A wheelhouse installed with --target (the GPU machine's /tmp/site: ipykernel, tvm_ffi) imports
    inside: the folders on $PYTHONPATH are bound read-only, also under /tmp; / or /tmp itself never is."""
    site = tmp_path / "site"
    (site / "course_probe_pkg").mkdir(parents=True)
    (site / "course_probe_pkg" / "__init__.py").write_text("VALUE = 42\n")
    (tmp_path / "sibling").mkdir()
    own = tmp_path / "own"
    own.mkdir()
    (own / "mine").write_text("mine")
    code = ("import json, os, sys, course_probe_pkg\n"
            "print(json.dumps([course_probe_pkg.VALUE, os.access(os.path.dirname(course_probe_pkg.__file__), os.W_OK),"
            " os.path.isdir(sys.argv[1])]))")
    argv = sandbox.wrapper(own, cpu=60, memory=None) + ["-c", code, str(tmp_path / "sibling")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([paths.python_path(), str(site), "/tmp"])}
    done = subprocess.run(argv, capture_output=True, text=True, cwd=own, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    value, writable, sibling = json.loads(done.stdout.strip().splitlines()[-1])
    assert value == 42 and not writable and not sibling
