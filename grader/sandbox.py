"""Student Python in a sandbox: a notebook's kernel during autograde, a Python exercise's checking process.

`python -m grader.sandbox --own DIR [--share DIR] [--hide DIR] [--cpu S] [--memory BYTES] -- <python
arguments>` runs `python <arguments>` as the last of three processes:

- the launcher (this command, as the grader's user) opens what the sandbox will show, reads the own
  folder's files, then forks
- a process that becomes an unprivileged user (nobody, when the grader is root) and enters new user,
  mount, PID, network, IPC and UTS namespaces, then forks
- the namespace's init (PID 1), which builds a new root and pivots into it: a tmpfs holding read-only
  binds of the system (/usr, /etc, /opt, the lib and bin folders), this Python and the course
  checkout (its `solutions/`, `instructor/`, `.course/` and `.git/` shown empty, but for the course's
  headers of earlier days' answers, solutions/include/dayNN, which course headers include); a few device nodes
  (null, zero, random, the GPU's); a new /proc (this PID namespace only); a private /tmp and $HOME; the
  own folder as a size-capped tmpfs holding a copy of its files (what is written there never reaches
  the original); `--share` folders (the kernel's connection file and sockets) writable. Nothing else
  of the machine is there: not the nbgrader course folder, other submissions, the gradebook, other
  homes. It then forks the process that runs Python, and waits: when that process ends, init
  ends, and the kernel kills every process left in the namespace (double forks included).

The process that runs Python has no capabilities (its bounding set is empty, and it is not root in
its namespace), no_new_privs, a seccomp filter (no mount, namespace, ptrace, keyring, BPF, perf,
module or file-handle syscalls), a scrubbed environment, a session of its own, and the kernels'
limits (grader.limits: CPU time, file size, no core files, address space on the emulator) plus a
cap on processes. The mounts it inherits are locked (even a nested user namespace could not unmount
or remount them). It cannot see or signal any process outside (the grader, nbgrader, other
students'), and the network namespace has no interface but a down loopback.

`unavailable()` says why a sandbox cannot be made here (no user namespaces, a container that may not
mount); the autograde then runs the notebook as it is, checks what changed afterwards, and grade-class
grades one student at a time.
"""
from __future__ import annotations

import argparse
import ctypes
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from grader import limits, paths

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE, MNT_DETACH = 16384, 1 << 18, 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
#: statvfs flags a read-only remount must keep (the kernel refuses to clear them in a user namespace)
_KEPT_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
               os.ST_NOATIME: 1024, os.ST_NODIRATIME: 2048, os.ST_RELATIME: 1 << 21}
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # its syscall number
KERNEL_NAME = "course-sandbox"
SANDBOX_ENV = "COURSE_SANDBOX"  # "off": run notebooks without a sandbox (then checks after they run)
UNPRIVILEGED = 65534            # the user the sandbox runs as when the grader is root (nobody)
SYSTEM = ("/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
DEVICES = ("null", "zero", "full", "random", "urandom")
HOME = "/home/sandbox"
OWN_BYTES, TMP_BYTES = 512 << 20, 256 << 20   # tmpfs sizes: the own folder, /tmp and $HOME
COPY_BYTES = 128 << 20         # the own folder's files copied in, at most
PROCESSES = 512                # processes and threads of the sandbox's user
ENV_KEEP = ("PATH", "LANG", "LC_ALL", "TERM", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_PATH",
            "CUDA_HOME", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSAFEPATH", "PYTHONDONTWRITEBYTECODE",
            "PYTHONUNBUFFERED", "PYTHONHASHSEED", "MPLBACKEND", "NBGRADER_EXECUTION", *limits.THREAD_ENV)
ENV_PREFIXES = ("COURSE_", "JPY_")


class SandboxError(OSError):
    pass


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise SandboxError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc().mount(source and source.encode(), target.encode(), fstype and fstype.encode(),
                         ctypes.c_ulong(flags), data and data.encode()), f"mount {target}")


def _prctl(option: int, arg: int) -> None:
    _check(_libc().prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


def _die_with_parent() -> None:
    """SIGKILL when the parent dies (set after every change of credentials, which clears it)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1 and os.getpid() != 1:  # the parent is already gone
        os._exit(1)


# ---- what the launcher prepares (as the grader's user) ---------------------------------------------

def _hidden_in_checkout(solutions_before: str | None) -> list[Path]:
    """The checkout's folders shown empty: the solutions (all, or those of `solutions_before` and later
    days: a Python exercise launches the course's kernels of earlier days), the instructor's notebooks
    (hidden tests) and git's history, those there are (a student edition has no solutions/ nor
    instructor/). (The course's state, .course/, is an empty scratch folder.)"""
    solutions = [] if not paths.SOLUTIONS.is_dir() else [paths.SOLUTIONS] if solutions_before is None else \
        [d for d in paths.SOLUTIONS.iterdir() if d.is_dir() and d.name >= solutions_before]
    return [p for p in (*solutions, paths.INSTRUCTOR_NOTEBOOKS.parent, paths.ROOT / ".git") if p.is_dir()]


def _shown_in_hidden(solutions_before: str | None) -> list[Path]:
    """The course's headers of the days' answers (solutions/include/dayNN, of the days before
    `solutions_before`, or all), shown read-only inside a hidden solutions/: the course headers include
    them, so the kernels compiled there need them (a student's file may not include them itself)."""
    return [d for d in sorted(paths.SOLUTION_INCLUDE.glob("day*"))
            if d.is_dir() and (solutions_before is None or d.name < solutions_before)]


def _read_own(own: Path) -> dict[str, bytes]:
    """The regular files under `own` (relative path -> bytes): links and what is past COPY_BYTES are
    left out."""
    files, total = {}, 0
    for path in sorted(own.rglob("*")):
        if path.is_symlink() or not path.is_file() or ".ipynb_checkpoints" in path.parts:
            continue
        size = path.stat().st_size
        if total + size > COPY_BYTES:
            continue
        files[str(path.relative_to(own))] = path.read_bytes()
        total += size
    return files


class Plan:
    """What the sandbox will show, decided by the launcher: folders bound read-only (by path: they
    are bound before the launcher's user is given up), shared writable, shown empty; the own
    folder's files; the user it runs as."""

    def __init__(self, own: Path, shares: list[Path], hide: list[Path], solutions_before: str | None = None):
        self.own = own.resolve()
        self.files = _read_own(self.own)
        self.uid, self.gid = (UNPRIVILEGED, UNPRIVILEGED) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
        self.links = {p: os.readlink(p) for p in SYSTEM if os.path.islink(p)}
        roots = [Path(p) for p in SYSTEM if os.path.isdir(p) and not os.path.islink(p)]
        roots += [Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), paths.ROOT]
        roots += [Path(os.environ[v]).resolve() for v in ("CUDA_HOME", "CUDA_PATH")
                  if os.path.isdir(os.environ.get(v, ""))]  # nvcc, for day 14's rmsnorm_ffi
        roots += _python_path_folders(self.own)  # packages installed with --target (a wheelhouse)
        self.read_only = [str(p) for p in sorted(set(roots), key=_depth)]
        self.shared = [str(p.resolve()) for p in shares]
        devices = [Path("/dev", d) for d in DEVICES] + sorted(Path("/dev").glob("nvidia*"))
        self.devices = [p.name for p in devices if p.exists()]  # /dev/nvidia-caps is a folder (MIG)
        self.hide = [str(p.resolve()) for p in [*_hidden_in_checkout(solutions_before), *hide]]
        self.shown = [str(p.resolve()) for p in _shown_in_hidden(solutions_before)]
        for folder in shares:  # the sandbox's user writes its sockets there
            if os.geteuid() == 0:
                os.chown(folder, self.uid, self.gid)
                for f in folder.iterdir():
                    os.chown(f, self.uid, self.gid, follow_symlinks=False)


_TOO_WIDE = {Path(p) for p in ("/", "/tmp", "/home", "/root", "/var", "/srv", "/mnt", "/media", "/run")}


def _python_path_folders(own: Path) -> list[Path]:
    """The folders on $PYTHONPATH (the course's packages may live there, e.g. /tmp/site), except a
    folder that is too wide to show (/, /tmp, /home ...) or that holds the notebook's own folder."""
    found = []
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        folder = Path(entry).resolve() if entry else None
        if folder and folder.is_dir() and folder not in _TOO_WIDE and not own.is_relative_to(folder):
            found.append(folder)
    return found


def _depth(p: Path) -> int:
    return len(p.parts)


# ---- the namespaces --------------------------------------------------------------------------------

def _map_self(uid: int, gid: int) -> None:
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


def _own_mount_namespace() -> None:
    """A mount namespace to build the view in: root's own, or one in a user namespace of this user."""
    if os.geteuid() == 0:
        _check(_libc().unshare(CLONE_NEWNS), "unshare (mount namespace)")
    else:
        uid, gid = os.geteuid(), os.getegid()
        _check(_libc().unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare (user namespaces)")
        _map_self(uid, gid)


def _become_unprivileged(plan: Plan) -> None:
    """Root gives up its user (nobody); then new user, mount, PID, network, IPC and UTS namespaces,
    the user mapped to itself. The mounts of the view become locked: the new user namespace cannot
    unmount or remount what it inherited."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(plan.gid, plan.gid, plan.gid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
        _prctl(PR_SET_DUMPABLE, 1)  # /proc/self/uid_map stays writable by this user
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc().unshare(flags), "unshare (user namespaces)")
    _map_self(plan.uid, plan.gid)


def _bind(source: str, target: str, read_only: bool, recursive: bool = True) -> None:
    _mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    if read_only:
        kept = sum(ms for st, ms in _KEPT_FLAGS.items() if os.statvfs(target).f_flag & st)
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | kept)


def _tmpfs(target: str, size: int, mode: str = "0755", owner: tuple[int, int] | None = None) -> None:
    os.makedirs(target, exist_ok=True)
    options = f"size={size},mode={mode}" + (f",uid={owner[0]},gid={owner[1]}" if owner else "")
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options)


def build_root(plan: Plan, new: str = "/tmp") -> None:
    """The new root (see the module), then pivot into it; the outer /proc stays bound until the
    namespace's init mounts its own over it."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # a folder to show that lies under the new root's mount point (/tmp/site) is covered by it: held
    # open first, it is bound from /proc/self/fd
    held = {f: os.open(f, os.O_PATH | os.O_DIRECTORY) for f in [*plan.read_only, *plan.shared, *plan.shown]
            if Path(f).is_relative_to(new)}
    source = lambda f: f"/proc/self/fd/{held[f]}" if f in held else f  # noqa: E731
    _tmpfs(new, 16 << 20)
    user = (plan.uid, plan.gid)
    _tmpfs(f"{new}/tmp", TMP_BYTES, "1777")
    _tmpfs(new + HOME, TMP_BYTES, "0700", user)
    for link, to in plan.links.items():
        os.symlink(to, new + link)
    for folder in plan.read_only:
        os.makedirs(new + folder, exist_ok=True)
        _bind(source(folder), new + folder, read_only=True)
    _tmpfs(f"{new}/dev", 1 << 20)
    for name in plan.devices:
        target = Path(f"{new}/dev/{name}")
        target.mkdir() if Path("/dev", name).is_dir() else target.touch()
        _bind(f"/dev/{name}", str(target), read_only=False, recursive=target.is_dir())
    _tmpfs(f"{new}/dev/shm", 64 << 20, "1777")
    for name, to in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                     ("stderr", "/proc/self/fd/2")):
        os.symlink(to, f"{new}/dev/{name}")
    os.makedirs(f"{new}/proc")
    _bind("/proc", f"{new}/proc", read_only=False, recursive=False)
    if os.path.isdir("/sys/class"):
        os.makedirs(f"{new}/sys")
        _bind("/sys", f"{new}/sys", read_only=True)
    hidden = [new + folder for folder in plan.hide if os.path.isdir(new + folder)]
    for folder in hidden:
        _tmpfs(folder, 1 << 20)
    for folder in plan.shown:
        os.makedirs(new + folder, exist_ok=True)
        _bind(source(folder), new + folder, read_only=True)
    if os.path.isdir(new + str(paths.STATE)):  # progress, plots, caches: written, then gone
        _tmpfs(new + str(paths.STATE), TMP_BYTES, "0755", user)
    for folder in plan.shared:
        os.makedirs(new + folder, exist_ok=True)
        _bind(source(folder), new + folder, read_only=False)
    for fd in held.values():
        os.close(fd)
    _tmpfs(new + str(plan.own), OWN_BYTES, "0755", user)
    for name, data in plan.files.items():
        target = Path(new + str(plan.own), name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        for made in [target, *target.relative_to(new + str(plan.own)).parents][:-1]:
            os.chown(Path(new + str(plan.own), made), *user)
    for folder in [*hidden, new]:  # empty and read-only (the own folder within stays as it is)
        _mount(None, folder, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(new)
    _check(_libc().syscall(_PIVOT_ROOT[os.uname().machine], b".", b"."), "pivot_root")
    _check(_libc().umount2(b".", MNT_DETACH), "umount the old root")
    os.chdir("/")


#: Syscalls the sandbox refuses (EPERM), by architecture: mounts and namespaces (the mounts are locked
#: anyway; this keeps the kernel's namespace code out of reach), ptrace, keys, BPF, perf, module and
#: kexec loading, file handles (open_by_handle_at reads past a bind mount) and userfaultfd.
_DENIED = {
    "x86_64": (0xC000003E, {"mount": 165, "umount2": 166, "pivot_root": 155, "unshare": 272, "setns": 308,
                            "ptrace": 101, "add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321,
                            "perf_event_open": 298, "userfaultfd": 323, "kexec_load": 246, "init_module": 175,
                            "finit_module": 313, "delete_module": 176, "open_by_handle_at": 304,
                            "name_to_handle_at": 303}, 56),
    "aarch64": (0xC00000B7, {"mount": 40, "umount2": 39, "pivot_root": 41, "unshare": 97, "setns": 268,
                             "ptrace": 117, "add_key": 217, "request_key": 218, "keyctl": 219, "bpf": 280,
                             "perf_event_open": 241, "userfaultfd": 282, "kexec_load": 104, "init_module": 105,
                             "finit_module": 273, "delete_module": 106, "open_by_handle_at": 265,
                             "name_to_handle_at": 264}, 220),
}
_NEW_SYSCALLS = (428, 429, 430, 431, 432, 433, 442)  # open_tree, move_mount, fsopen ... mount_setattr
CLONE3, CLONE_NAMESPACES = 435, 0x7E020000  # clone3 gets ENOSYS (libc then uses clone), whose flags are checked


def _seccomp() -> bool:
    """Install the filter of _DENIED (needs no_new_privs); False where this architecture is not known."""
    known = _DENIED.get(os.uname().machine)
    if known is None:
        return False
    arch, denied, clone = known
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JSET|K, BPF_RET|K
    allow, eperm, enosys, kill = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38, 0x80000000
    numbers = [*denied.values(), *_NEW_SYSCALLS]
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill), (ld, 0, 0, 0)]
    if arch == 0xC000003E:  # the x32 ABI's numbers bypass a filter of x86_64 numbers
        prog += [(0x35, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # BPF_JMP|JGE|K
    prog += [(jeq, 0, 1, CLONE3), (ret, 0, 0, enosys)]
    prog += [(jeq, 0, 3, clone), (ld, 0, 0, 16), (jset, 0, 1, CLONE_NAMESPACES), (ret, 0, 0, eperm), (ld, 0, 0, 0)]
    for n in numbers:
        prog += [(jeq, 0, 1, n), (ret, 0, 0, eperm)]
    prog.append((ret, 0, 0, allow))

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

    filters = (Filter * len(prog))(*[Filter(*f) for f in prog])
    program = Program(len(prog), filters)
    _check(_libc().prctl(22, 2, ctypes.byref(program), 0, 0), "seccomp")  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    return True


def _drop_capabilities() -> None:
    """Empty bounding set (an exec gains nothing), no_new_privs; the exec of a non-root user in the
    namespace then leaves no capability."""
    for cap in range(64):
        if _libc().prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def sandbox_env(env: dict[str, str]) -> dict[str, str]:
    """The environment inside: an allow-list, $HOME and /tmp private, caches in $HOME."""
    from grader import child

    kept = {k: v for k, v in env.items() if (k in ENV_KEEP or k.startswith(ENV_PREFIXES)
            or k in (child.FD_ENV, child.NONCE_ENV)) and k != "JPY_PARENT_PID"}  # a pid outside: ipykernel
    # would take its parent (the namespace's init, pid 1) for gone and exit; init's end ends the kernel
    return {**kept, "HOME": HOME, "TMPDIR": "/tmp", "USER": "sandbox", "CUPY_CACHE_DIR": f"{HOME}/.cupy/kernel_cache",
            "PYTHONDONTWRITEBYTECODE": "1"}


def _supervise(pid: int) -> int:
    """Wait for `pid` (reaping any orphan meanwhile, as an init does); its exit status."""
    while True:
        try:
            done, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 1
        if done == pid:
            return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def run(plan: Plan, argv: list[str], cpu: int, memory: int | None) -> int:
    """Run `python argv` in the sandbox (see the module); its exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is for the kernel, the last process
    outer = os.fork()
    if outer:
        return _supervise(outer)
    try:
        _die_with_parent()
        _own_mount_namespace()
        build_root(plan)
        _become_unprivileged(plan)
        _die_with_parent()
        init = os.fork()
        if init:
            os._exit(_supervise(init))
        _die_with_parent()
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)  # this PID namespace only
        os.chdir(str(plan.own))
        python = os.fork()
        if python == 0:
            os.setsid()  # a session of its own: it cannot signal the launcher's process group
            _drop_capabilities()
            _seccomp()
            limits.apply_limits(cpu, memory, processes=PROCESSES)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execve(sys.executable, [sys.executable, *argv], sandbox_env(dict(os.environ)))
        os._exit(_supervise(python))  # init: its end kills every process left in the namespace
    except BaseException as e:  # noqa: BLE001 - one line to the caller, in any of the forks
        print(f"no sandbox here: {e}", file=sys.stderr, flush=True)
        os._exit(70)


def wrapper(own: Path, *, shares=(), hide=(), cpu: int, memory: int | None,
            solutions_before: str | None = None) -> list[str]:
    """The command line that runs what follows it in a sandbox whose own folder is `own`."""
    argv = [sys.executable, "-m", "grader.sandbox", "--own", str(own), "--cpu", str(cpu),
            "--memory", str(memory or 0)] + (["--solutions-before", solutions_before] if solutions_before else [])
    for flag, folders in (("--share", shares), ("--hide", hide)):
        for f in folders:
            argv += [flag, str(f)]
    return [*argv, "--"]


# ---- is there a sandbox here? ------------------------------------------------------------------------

@functools.cache
def unavailable() -> str | None:
    """None when a sandbox can be made here, else the reason (tried once, in a child)."""
    if os.environ.get(SANDBOX_ENV, "").strip().lower() == "off":
        return f"turned off ({SANDBOX_ENV}=off)"
    probe = subprocess.run([sys.executable, "-m", "grader.sandbox", "--probe"], capture_output=True,
                           text=True, timeout=120, env={**os.environ, "PYTHONPATH": paths.python_path()})
    if probe.returncode == 0:
        return None
    said = (probe.stdout + probe.stderr).strip()
    return said.splitlines()[-1] if said else f"exit status {probe.returncode}"


PROBE = """
import json, os, sys
from pathlib import Path
seen = {"uid": os.getuid(), "pid": os.getpid(), "own": Path("mine").read_text(),
        "hidden": os.path.exists(sys.argv[1]), "secret": os.path.exists(sys.argv[2])}
for where in (os.path.dirname(sys.argv[1]), "/proc/1/root" + os.path.dirname(sys.argv[1]), "/"):
    try:
        Path(where, "new").write_text("x")
    except OSError:
        pass
Path("mine").write_text("changed")
print(json.dumps(seen))
"""


def _probe() -> int:
    """Exit 0 when a sandbox works: its own folder is a copy, a hidden folder and a file outside are not
    there, nothing it writes reaches the course folder, and it runs as an unprivileged user in a PID
    namespace of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        course, secret = Path(tmp) / "course", Path(tmp) / "secret"
        own = course / "autograded" / "s" / "d"
        own.mkdir(parents=True)
        (course / "submitted").mkdir()
        secret.write_text("x")
        (own / "mine").write_text("mine")
        if os.geteuid() == 0:
            os.chmod(tmp, 0o755)
        argv = wrapper(own, hide=[course], cpu=60, memory=None) + ["-c", PROBE, str(course / "submitted"), str(secret)]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=own, timeout=100,
                              env={**os.environ, "PYTHONPATH": paths.python_path()})
        if done.returncode != 0:
            print((done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1])
            return 1
        seen = json.loads(done.stdout.strip().splitlines()[-1])
        problems = [what for what, bad in (
            ("root inside", seen["uid"] == 0), ("not PID 2 of its own namespace", seen["pid"] != 2),
            ("its own folder is not a copy", seen["own"] != "mine" or (own / "mine").read_text() != "mine"),
            ("a hidden folder shows", seen["hidden"]), ("a file outside shows", seen["secret"]),
            ("wrote outside", (course / "new").exists() or Path("/new").exists()))
            if bad]
        if problems:
            print(f"no sandbox here: {'; '.join(problems)}")
            return 1
        return 0


# ---- the notebook's kernel --------------------------------------------------------------------------

def kernelspec(course_dir: Path, emulated: bool, cpu: int) -> Path:
    """Write the sandboxed kernel's spec under <course_dir>/.course-kernels; the folder to put on
    JUPYTER_PATH. The kernel manager must use ipc sockets in a folder of their own (SandboxedKernelManager)."""
    root = Path(course_dir).resolve() / ".course-kernels"
    spec = root / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    memory = limits.EMULATOR_ADDRESS_SPACE if emulated else None
    argv = [sys.executable, "-m", "grader.sandbox", "--own", ".", "--cpu", str(cpu), "--memory", str(memory or 0),
            "--hide", str(Path(course_dir).resolve()), "--share-parent-of", "{connection_file}", "--",
            "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    text = json.dumps({"argv": argv, "display_name": "Python 3 (course sandbox)", "language": "python",
                       "interrupt_mode": "message", "env": {"PYTHONPATH": paths.python_path()}}, indent=1)
    # written whole, then renamed: grade-class tasks running at once never read half a spec
    partial = spec / f"kernel.json.{os.getpid()}"
    partial.write_text(text)
    os.replace(partial, spec / "kernel.json")
    return root


def kernel_manager_class():
    """jupyter_client's AsyncKernelManager speaking over ipc sockets in a folder of their own (the
    sandbox has its own network namespace, so tcp on localhost would not reach it)."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum

    class SandboxedKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        async def _async_pre_start_kernel(self, **kw):
            self._sockets = tempfile.mkdtemp(prefix="course-kernel-")
            self.connection_file = os.path.join(self._sockets, "kernel.json")
            self.ip = os.path.join(self._sockets, "kernel-ipc")
            return await super()._async_pre_start_kernel(**kw)

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart and getattr(self, "_sockets", None):
                shutil.rmtree(self._sockets, ignore_errors=True)

    return SandboxedKernelManager


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.sandbox")
    parser.add_argument("--probe", action="store_true", help="exit 0 when a sandbox can be made here")
    parser.add_argument("--own", type=Path, help="the folder the sandbox sees as its own (a copy)")
    parser.add_argument("--share", type=Path, action="append", default=[], help="a folder shared writable")
    parser.add_argument("--share-parent-of", type=Path, action="append", default=[],
                        help="the folder of this file, shared writable")
    parser.add_argument("--hide", type=Path, action="append", default=[], help="a folder shown empty")
    parser.add_argument("--solutions-before", metavar="DAY", help="show the solutions of the days before DAY")
    parser.add_argument("--cpu", type=int, default=3600, help="CPU seconds of each process")
    parser.add_argument("--memory", type=int, default=0, help="address space of each process (0: no cap)")
    parser.add_argument("python_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.probe:
        return _probe()
    rest = args.python_args[1:] if args.python_args[:1] == ["--"] else args.python_args
    if not args.own or not rest:
        parser.error("--own DIR -- <python arguments> are required")
    shares = args.share + [p.parent for p in args.share_parent_of]
    missing = [str(p) for p in [args.own, *shares] if not p.is_dir()]
    if missing:
        print(f"no sandbox: {', '.join(missing)} is not a folder", file=sys.stderr)
        return 2
    try:
        plan = Plan(args.own, shares, args.hide, args.solutions_before)
    except OSError as e:
        print(f"no sandbox here: {e}", file=sys.stderr)
        return 70
    return run(plan, rest, args.cpu, args.memory or None)


if __name__ == "__main__":
    raise SystemExit(main())
