"""The notebook kernel of an autograde, in a sandbox where Linux allows one.

`python -m grader.sandbox --course DIR -- <python arguments>` enters a new mount namespace (and a
user namespace when not root), then starts the kernel with this view of the files:

- the course checkout, this Python environment and the nbgrader course folder are read-only;
- `solutions/`, the course's `.course/` state, and the nbgrader folders `source/`, `release/`,
  `submitted/`, `autograded/`, `feedback/` are empty scratch folders (nothing of the instructor's or of
  other students' can be read, and what is written there vanishes with the kernel);
- `gradebook.db` reads as an empty file;
- the notebook's own folder (the kernel's working directory) stays writable.

Kernels still run on the GPU (/dev is untouched). `unavailable()` says why a sandbox cannot be made
here (a container without the right to mount, say); the autograde then runs the notebook as it is
and relies on checking what changed (grader.autograde).
"""
from __future__ import annotations

import argparse
import ctypes
import functools
import os
import subprocess
import sys
from pathlib import Path

from grader import paths

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
HIDDEN_COURSE_FOLDERS = ("source", "release", "submitted", "autograded", "feedback", "exchange")
KERNEL_NAME = "course-sandbox"
SANDBOX_ENV = "COURSE_SANDBOX"  # "off": run the notebook without a sandbox (then checks after it runs)


class SandboxError(OSError):
    pass


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise SandboxError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    libc = _libc()
    _check(libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(),
                      ctypes.c_ulong(flags), data and data.encode()), f"mount {target}")


def _enter_namespace() -> None:
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWNS | (CLONE_NEWUSER if uid != 0 else 0)
    _check(_libc().unshare(flags), "unshare")
    if uid != 0:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)


def _read_only(folder: Path) -> None:
    _mount(str(folder), str(folder), None, MS_BIND | MS_REC)
    _mount(None, str(folder), None, MS_BIND | MS_REMOUNT | MS_RDONLY)


def _scratch(folder: Path) -> None:
    _mount("tmpfs", str(folder), "tmpfs", 0, "size=64m,mode=0755")


def lock_down(course_dir: Path, own: Path) -> None:
    """Build the sandbox's view of the files (see the module's docstring) in this process."""
    course_dir, own = course_dir.resolve(), own.resolve()
    _enter_namespace()
    keep = os.open(own, os.O_PATH | os.O_DIRECTORY)  # the own folder, reachable after it is covered
    for folder in dict.fromkeys([paths.ROOT, Path(sys.prefix).resolve(), course_dir]):
        if folder.is_dir() and folder != Path("/"):
            _read_only(folder)
    hidden = [paths.SOLUTIONS, paths.STATE] + [course_dir / name for name in HIDDEN_COURSE_FOLDERS]
    for folder in hidden:
        if folder.is_dir():
            _scratch(folder)
    gradebook = course_dir / "gradebook.db"
    if gradebook.is_file():
        _mount("/dev/null", str(gradebook), None, MS_BIND)
    own.mkdir(parents=True, exist_ok=True)  # inside a scratch folder, when the own folder is covered
    _mount(f"/proc/self/fd/{keep}", str(own), None, MS_BIND)
    os.close(keep)
    os.chdir(own)


@functools.cache
def unavailable() -> str | None:
    """None when a sandbox can be made here, else the reason (tried once, in a child)."""
    if os.environ.get(SANDBOX_ENV, "").strip().lower() == "off":
        return f"turned off ({SANDBOX_ENV}=off)"
    probe = subprocess.run([sys.executable, "-m", "grader.sandbox", "--probe"], capture_output=True,
                           text=True, timeout=60, env={**os.environ, "PYTHONPATH": paths.python_path()})
    if probe.returncode == 0:
        return None
    return (probe.stdout + probe.stderr).strip().splitlines()[-1] if (probe.stdout + probe.stderr).strip() \
        else f"exit status {probe.returncode}"


def kernelspec(course_dir: Path) -> Path:
    """Write the sandboxed kernel's spec under <course_dir>/.course-kernels; the folder to put on
    JUPYTER_PATH."""
    import json

    root = Path(course_dir).resolve() / ".course-kernels"
    spec = root / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "grader.sandbox", "--course", str(Path(course_dir).resolve()), "--",
            "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    text = json.dumps({"argv": argv, "display_name": "Python 3 (course sandbox)", "language": "python",
                       "env": {"PYTHONPATH": paths.python_path()}}, indent=1)
    # written whole, then renamed: grade-class tasks running at once never read half a spec
    partial = spec / f"kernel.json.{os.getpid()}"
    partial.write_text(text)
    os.replace(partial, spec / "kernel.json")
    return root


def _probe() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        (course / "submitted").mkdir(parents=True)
        own = course / "autograded" / "s" / "d"
        own.mkdir(parents=True)
        (course / "submitted" / "secret").write_text("x")
        pid = os.fork()
        if pid == 0:
            try:
                lock_down(course, own)
                assert not (course / "submitted" / "secret").exists(), "the hidden folder is visible"
                (own / "ok").write_text("written")
                try:
                    (course / "new").write_text("x")
                    raise AssertionError("the course folder is writable")
                except OSError:
                    pass
                os._exit(0)
            except Exception as e:  # noqa: BLE001 - reported to the parent
                print(f"no sandbox here: {e}", flush=True)
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            return 1
        return 0 if (own / "ok").read_text() == "written" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.sandbox")
    parser.add_argument("--probe", action="store_true", help="exit 0 when a sandbox can be made here")
    parser.add_argument("--course", help="the nbgrader course folder")
    parser.add_argument("python_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.probe:
        return _probe()
    rest = args.python_args[1:] if args.python_args[:1] == ["--"] else args.python_args
    if not args.course or not rest:
        parser.error("--course DIR -- <python arguments> are required")
    lock_down(Path(args.course), Path.cwd())
    os.execv(sys.executable, [sys.executable, *rest])
    return 1  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
