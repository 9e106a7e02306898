"""`python -m grader grade-class COURSE_DIR`: autograde a whole class on Ray (or this machine's CPUs),
one task per (student, day).

Each task runs nbgrader's autograde for one student and one assignment, exactly as `nbgrader autograde`
does with the course's locked-down grading (grader.autograde), but through nbgrader's own API inside
a worker process (as nbgrader's formgrader runs it: nbgrader, Jupyter and the course are imported once
per worker, not once per submission) and into a gradebook of its own: a copy
of the course's gradebook under `autograded/.grade-class/` (hidden from notebooks by the sandbox, with
the rest of `autograded/`). When the task ends, this process merges that submission's grades and
comments into the course's `gradebook.db` through nbgrader's API in one transaction, so the gradebook
only ever holds whole (student, day) results: a killed run resumes where it stopped (graded pairs are
skipped unless --force). A submission whose kernels crash or hang gets the points of what passed (the
course's per-case time budgets); a task that dies (nbgrader failed, out of memory, past --timeout) is
reported with its reason and graded again on the next run (a task past --timeout is cancelled, its
worker with it); every other grade stands. On the emulator a worker runs the fixed-seed calls (the
hidden tests) of identical submitted bytes once (`isolation.remembering`); `nbgrader autograde` every time.

Without --address, worker processes of this machine take one task at a time (a local pool: Ray's start
and stop, ~9 s, would be a fifth of a small class's time; the tasks, their timeouts and merges are the
same): on a GPU machine 1 / `--gpus-per-task` of them per GPU, each seeing only its own GPU
(CUDA_VISIBLE_DEVICES); on the emulator `--workers` of them (default: one per core). With --address
it joins a Ray cluster, whose nodes
must see the course folder and this checkout at the same paths (a shared filesystem). Without a sandbox
for the notebooks (grader.sandbox) pairs are graded one at a time, as the README asks of nbgrader, and
a notebook's change to the course's gradebook is undone (the notebook itself scores zero for it).
"""
from __future__ import annotations

import contextlib
import logging
import os
import socket
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import device, paths, sandbox

COMMAND = "grade-class"
HELP = "autograde every (student, day) of an nbgrader course on Ray, into one gradebook"
TASK_DBS = Path("autograded") / ".grade-class"   # per-task gradebooks: hidden from notebooks (sandbox)
LOCK = ".grade-class.lock"
TASK_TIMEOUT_S = 3600.0
TROUBLE = ("timed out", "crashed", "scored zero", "died", "ran past",  # a grade cell's words, in either language
           "超时", "崩溃", "得零分", "超过了")


@dataclass
class Result:
    """What one task found: the submission's grades to merge (None when the task failed, then `error`
    says why), its score, and the kernels that crashed or hung (`problems`)."""
    student: str
    assignment: str
    seconds: float
    record: dict | None = None
    score: float | None = None
    max_score: float | None = None
    error: str = ""
    problems: list[str] = field(default_factory=list)


# ---- which pairs ----------------------------------------------------------------------------------

def course_folder(course_dir) -> Path:
    """The course folder, checked to be one `python -m grader release` built."""
    course_dir = Path(course_dir).resolve()
    for name in ("nbgrader_config.py", "gradebook.db"):
        if not (course_dir / name).is_file():
            raise FileNotFoundError(f"{course_dir} has no {name}: not a course built by "
                                    f"`python -m grader release`")
    return course_dir


def plan(course_dir: Path, days=None, students=None) -> list[tuple[str, str]]:
    """The (student, assignment) pairs with a submission in submitted/, for the given days (dayNN or
    dayNN-zh; default every assignment of the gradebook) and students (default all)."""
    from grader import nbgrader_course as course

    with course.gradebook(course_dir) as gb:
        known = [a.name for a in gb.assignments]
    if days:
        wanted = [course.assignment_name(*course.split_assignment(d)) for d in days]
        missing = [a for a in wanted if a not in known]
        if missing:
            raise ValueError(f"{', '.join(missing)}: not an assignment of {course_dir} "
                             f"(it has: {', '.join(known) or 'none'})")
    else:
        wanted = known
    submitted = course_dir / "submitted"
    everyone = sorted(p.name for p in submitted.iterdir() if p.is_dir()) if submitted.is_dir() else []
    chosen = list(dict.fromkeys(students)) if students else everyone
    unknown = [s for s in chosen if s not in everyone]
    if unknown:
        raise ValueError(f"no submissions from {', '.join(unknown)} in {submitted}")
    pairs = [(s, a) for a in wanted for s in chosen if (submitted / s / a).is_dir()]
    if not pairs:
        raise ValueError(f"nothing submitted for {', '.join(wanted) or 'any assignment'} in {submitted}")
    return pairs


def graded(course_dir: Path) -> set[tuple[str, str]]:
    """The (student, assignment) pairs the course's gradebook already holds."""
    from grader import nbgrader_course as course

    with course.gradebook(course_dir) as gb:
        return {(s.student.id, s.assignment.name) for a in gb.assignments for s in a.submissions}


def _ensure_students(course_dir: Path, students) -> None:
    """Add the students the gradebook does not know yet (nbgrader's autograde needs them)."""
    from grader import nbgrader_course as course

    with course.gradebook(course_dir) as gb:
        have = {s.id for s in gb.students}
        for student in sorted(set(students) - have):
            gb.update_or_create_student(student)


# ---- one task: autograde one pair into its own gradebook -------------------------------------------

def _copy_db(source: Path, dest: Path) -> None:
    """A consistent copy of an SQLite database, taken while others may write it."""
    dest.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(dest)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def task_db(course_dir: Path, student: str, assignment: str) -> Path:
    return course_dir / TASK_DBS / f"{assignment}--{student}.db"


@contextlib.contextmanager
def _nbgrader_environment():
    """os.environ as `nbgrader_course.run_nbgrader` gives its process, for one task; restored after."""
    from grader import nbgrader_course as course

    saved, env = dict(os.environ), course.nbgrader_env()
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def autograde_here(root: Path, student: str, assignment: str, db: Path) -> None:
    """`nbgrader autograde ASSIGNMENT --student=STUDENT --force` into the gradebook `db`, in this process
    (nbgrader's API, with the course's nbgrader_config.py); NbgraderError with its log if it fails."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader

    from grader import nbgrader_course as course

    with _nbgrader_environment(), contextlib.chdir(root):
        config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
        config.CourseDirectory.db_url = f"sqlite:///{db}"
        done = NbGraderAPI(config=config).autograde(assignment, student, force=True, create=True)
    if not done["success"]:
        raise course.NbgraderError(f"`nbgrader autograde {assignment} --student={student}` failed in {root}:\n"
                                   f"{done.get('log', '')}\n{done.get('error', '')}".strip())


def grade_pair(course_dir: str, student: str, assignment: str) -> Result:
    """Autograde one submission into a gradebook of its own; the grades come back in the Result."""
    from grader import isolation
    from grader import nbgrader_course as course

    start = time.monotonic()
    root = Path(course_dir)
    db = task_db(root, student, assignment)
    db.parent.mkdir(parents=True, exist_ok=True)
    try:
        _copy_db(root / "gradebook.db", db)
        with isolation.remembering():  # an identical submission's hidden tests: graded once per worker
            autograde_here(root, student, assignment, db)
        result = _read_submission(db, student, assignment)
        result.problems = _problems(root / "autograded" / student / assignment)
    except course.NbgraderError as e:
        lines = str(e).splitlines()
        errors = [ln.strip() for ln in lines[1:] if "error" in ln.lower()] or [ln.strip() for ln in lines[1:]]
        result = Result(student, assignment, 0.0,
                        error=f"nbgrader autograde failed: {errors[-1]}" if errors else lines[0])
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    result.seconds = time.monotonic() - start
    return result


def _read_submission(db: Path, student: str, assignment: str) -> Result:
    from nbgrader.api import Gradebook

    from grader import nbgrader_course as course

    with Gradebook(f"sqlite:///{db}", course_id=course.COURSE_ID) as gb:
        sub = gb.find_submission(assignment, student)
        record = {"timestamp": sub.timestamp, "extension": sub.extension, "notebooks": {
            nb.name: {"flagged": nb.flagged, "late_submission_penalty": nb.late_submission_penalty,
                      "grades": {g.cell.name: {k: getattr(g, k) for k in ("auto_score", "manual_score",
                                                                           "extra_credit", "needs_manual_grade")}
                                 for g in nb.grades},
                      "comments": {c.cell.name: {"auto_comment": c.auto_comment, "manual_comment": c.manual_comment}
                                   for c in nb.comments}}
            for nb in sub.notebooks}}
        return Result(student, assignment, 0.0, record, float(sub.code_score), float(sub.max_code_score))


def _problems(folder: Path) -> list[str]:
    """The first line of each autograder cell that crashed, hung or scored zero for a cheat."""
    import nbformat

    from grader.autograde import is_autograded

    found = []
    for notebook in sorted(folder.glob("*.ipynb")):
        for cell in nbformat.read(notebook, as_version=4).cells:
            if not is_autograded(cell):
                continue
            for out in cell.get("outputs", []):
                text = "\n".join(out.get("traceback", [])) if out.get("output_type") == "error" else ""
                found += [ln.strip() for ln in text.splitlines() if any(t in ln for t in TROUBLE)][:1]
    return list(dict.fromkeys(found))


# ---- merging into the course's gradebook ----------------------------------------------------------

def merge(course_dir: Path, result: Result) -> None:
    """Write one task's submission into the course's gradebook in a single transaction (nbgrader's
    ORM; a submission already there is updated, as `nbgrader autograde --force` would)."""
    from nbgrader.api import Comment, Grade, MissingEntry, SubmittedAssignment, SubmittedNotebook

    from grader import nbgrader_course as course

    rec = result.record
    with course.gradebook(course_dir) as gb:
        try:
            sub = gb.find_submission(result.assignment, result.student)
        except MissingEntry:  # the structure nbgrader's add_submission builds, without its commit
            with gb.db.no_autoflush:
                sub = SubmittedAssignment(assignment=gb.find_assignment(result.assignment),
                                          student=gb.find_student(result.student))
                gb.db.add(sub)
                for notebook in sub.assignment.notebooks:
                    snb = SubmittedNotebook(notebook=notebook, assignment=sub)
                    gb.db.add(snb)
                    gb.db.add_all([Grade(cell=c, notebook=snb) for c in [*notebook.grade_cells, *notebook.task_cells]])
                    gb.db.add_all([Comment(cell=c, notebook=snb)
                                   for c in [*notebook.solution_cells, *notebook.task_cells]])
        try:
            sub.timestamp, sub.extension = rec["timestamp"], rec["extension"]
            for snb in sub.notebooks:
                data = rec["notebooks"][snb.name]
                snb.flagged, snb.late_submission_penalty = data["flagged"], data["late_submission_penalty"]
                for g in snb.grades:
                    for key, value in data["grades"][g.cell.name].items():
                        setattr(g, key, value)
                for c in snb.comments:
                    for key, value in data["comments"][c.cell.name].items():
                        setattr(c, key, value)
            gb.db.commit()
        except BaseException:
            gb.db.rollback()
            raise


# ---- the run --------------------------------------------------------------------------------------

def _start_ray(address: str):
    try:
        import ray
    except ImportError:
        raise ValueError('grade-class --address needs Ray: pip install -e ".[class]"') from None
    env = {k: os.environ[k] for k in (device.BACKEND_ENV, sandbox.SANDBOX_ENV, "CUPY_CACHE_DIR") if k in os.environ}
    env["PYTHONPATH"] = paths.python_path()
    ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR, runtime_env={"env_vars": env})
    return ray


def _reachable(address: str) -> None:
    """A clear error, at once, for a head node that does not answer (Ray itself retries for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return  # "auto", "ray://...": Ray's own lookup
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as e:
        raise ValueError(f"no Ray cluster answers at {address} ({e.strerror or e})") from None


class _RayPool:
    """Tasks on a Ray cluster: each (student, day) a task of its own."""

    def __init__(self, address: str, gpus_per_task: float, emulated: bool):
        self.ray = ray = _start_ray(address)
        try:
            self.remote = self._remote(gpus_per_task, emulated)
        except BaseException:
            ray.shutdown()
            raise
        self.capacity = None  # Ray queues what its workers cannot take yet

    def _remote(self, gpus_per_task: float, emulated: bool):
        ray = self.ray
        if emulated:
            return ray.remote(grade_pair).options(num_cpus=1, max_retries=1)
        have = ray.cluster_resources().get("GPU", 0)
        if have < gpus_per_task:
            raise ValueError(f"the Ray cluster has {have:g} GPUs, a task asks for {gpus_per_task:g} "
                             f"(--gpus-per-task); on a machine without a GPU set COURSE_BACKEND=emulator")
        return ray.remote(grade_pair).options(num_cpus=1, num_gpus=gpus_per_task, max_retries=1)

    def submit(self, course_dir: Path, student: str, assignment: str):
        return self.remote.remote(str(course_dir), student, assignment)

    def wait(self, tasks: list, timeout: float):
        ready, _ = self.ray.wait(tasks, num_returns=1, timeout=timeout)
        return ready[0] if ready else None

    def result(self, task) -> Result | str:
        """The task's Result, or one line saying why it has none (its worker died, ran out of memory...)."""
        ray = self.ray
        try:
            return ray.get(task)
        except ray.exceptions.RayError as error:
            cause = error.cause if isinstance(error, ray.exceptions.RayTaskError) and error.cause else error
            first = (str(cause).strip().splitlines() or [""])[0]
            return f"{cause.__class__.__name__}: {first[:200]}"

    def stop(self, task) -> None:
        self.ray.cancel(task, force=True)  # its worker with it

    def close(self) -> None:
        self.ray.shutdown()


def _serve(conn, gpu: str | None = None, threads: int = 1) -> None:
    """A local pool's worker: `grade_pair` for each (course_dir, student, assignment) it is sent, on
    `gpu` alone (CUDA_VISIBLE_DEVICES, which its grading children keep) where given, with `threads` BLAS
    and OpenMP threads (its share of the cores; they keep that too). What it and its notebooks' kernels
    print goes nowhere (as Ray's workers' does: log_to_driver=False)."""
    from grader.limits import THREAD_ENV

    if gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu
    os.environ.update(dict.fromkeys(THREAD_ENV, str(threads)))
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.close(quiet)
    from nbgrader.apps import NbGraderAPI  # noqa: F401 - imported while the first task is on its way

    from grader import autograde

    autograde.prepare()
    while True:
        task = conn.recv()
        try:
            result = grade_pair(*task)
        except Exception as e:  # noqa: BLE001 - one line, as Ray reports a task's exception
            first = (str(e).strip().splitlines() or [""])[0]
            result = f"{e.__class__.__name__}: {first[:200]}"
        conn.send(result)


class _LocalPool:
    """Tasks in `workers` processes of this machine, each started once (nbgrader, Jupyter and the course
    imported once per worker, as on Ray) and given one (student, day) at a time; a worker that dies is
    replaced and its task run once more (as Ray's max_retries=1), one stopped past --timeout is killed
    and replaced (on the same GPU). Ray's start and stop cost more than a class on one machine takes to
    share out. `gpus`: the GPU each worker sees, in turn (None: the emulator)."""

    def __init__(self, workers: int | None, gpus: list[str] | None = None):
        import multiprocessing

        self.context = multiprocessing.get_context("spawn")  # nothing of this process's state (threads, locks)
        self.capacity = max(1, workers or os.cpu_count() or 1)
        self.threads = max(1, (os.cpu_count() or 1) // self.capacity)
        self.idle = [self._start(gpus[i % len(gpus)] if gpus else None) for i in range(self.capacity)]
        self.busy = {}   # task (its arguments) -> (process, connection, its GPU, whether it ran before in one that died)
        self.died = set()

    def _start(self, gpu: str | None):
        mine, theirs = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(theirs, gpu, self.threads), daemon=True,
                                       name="grade-class worker")
        process.start()
        theirs.close()
        return process, mine, gpu

    def submit(self, course_dir: Path, student: str, assignment: str):
        process, conn, gpu = self.idle.pop()
        task = (str(course_dir), student, assignment)
        conn.send(task)
        self.busy[task] = (process, conn, gpu, task in self.died)
        return task

    def wait(self, tasks: list, timeout: float):
        from multiprocessing.connection import wait

        owner = {}
        for task in tasks:
            process, conn, *_ = self.busy[task]
            owner[conn], owner[process.sentinel] = task, task
        ready = wait(list(owner), timeout)
        return owner[ready[0]] if ready else None

    def result(self, task) -> Result | str | None:
        """The task's Result, one line saying why it has none, or None: its worker died, and the task
        runs again (once) in a new one, under the same name."""
        process, conn, gpu, retried = self.busy.pop(task)
        try:
            found = conn.recv()
        except (EOFError, OSError):  # the worker died (killed, out of memory, a crash in a library)
            process.join(5)
            conn.close()
            self.idle.append(self._start(gpu))
            if retried:
                return f"WorkerDied: its worker process ended with exit code {process.exitcode}"
            self.died.add(task)
            self.submit(Path(task[0]), *task[1:])
            return None
        self.idle.append((process, conn, gpu))
        return found

    def stop(self, task) -> None:
        process, conn, gpu, _ = self.busy.pop(task)
        process.kill()
        process.join()
        conn.close()
        self.idle.append(self._start(gpu))

    def close(self) -> None:
        """Every worker killed: an idle one holds nothing to save, and its interpreter's own exit (nbgrader,
        Jupyter and SQLAlchemy loaded) takes seconds."""
        for process, conn, *_ in [*self.idle, *self.busy.values()]:
            process.kill()
            process.join()
            conn.close()


def gpu_ids() -> list[str]:
    """This machine's GPUs as CUDA_VISIBLE_DEVICES names them (every GPU where it is unset)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [g.strip() for g in visible.split(",") if g.strip()]
    import cupy

    return [str(i) for i in range(cupy.cuda.runtime.getDeviceCount())]


def _pool(address: str | None, workers: int | None, gpus_per_task: float):
    """Ray for a cluster (--address); this machine's processes otherwise: on a GPU machine
    1 / gpus_per_task of them per GPU (unless --workers says how many), on the emulator one per core."""
    emulated = device.emulated()
    if address is not None:
        return _RayPool(address, gpus_per_task, emulated)
    if emulated:
        return _LocalPool(workers)
    if gpus_per_task <= 0:
        raise ValueError(f"--gpus-per-task {gpus_per_task:g}: expected more than 0 (0.5 runs two tasks per GPU)")
    gpus = gpu_ids()
    if not gpus:
        raise ValueError("CUDA_VISIBLE_DEVICES names no GPU; on a machine without a GPU set COURSE_BACKEND=emulator")
    return _LocalPool(workers or len(gpus) * max(1, round(1 / min(gpus_per_task, 1.0))), gpus)


def measure_budgets(course_dir: Path, assignments, threads: int) -> int:
    """Measure the solutions' case times that the assignments' grading needs (each exercise's own cases
    and the hidden calls of its notebook), side by side in `threads` threads, before any task starts: a
    day's tasks start together and would otherwise wait on one task measuring them one exercise after
    another. Returns how many cases' budgets are known."""
    from concurrent.futures import ThreadPoolExecutor

    import nbformat

    from grader import autograde, exercises, isolation
    from grader.assignments import split_assignment

    todo = []
    for assignment in dict.fromkeys(assignments):
        day = split_assignment(assignment)[0]
        todo += [(ex, isolation.runnable_cases(ex)) for ex in exercises.day_exercises(day)]
        source = course_dir / "source" / assignment / f"{assignment}.ipynb"
        cells = nbformat.read(source, as_version=4).cells if source.is_file() else []
        todo += [(exercises.get(day, call.name), list(call.cases)) for cell in cells if autograde.is_autograded(cell)
                 for call in autograde.grade_calls(cell.source) if call.cases]
    backend = device.backend()
    with ThreadPoolExecutor(max(1, threads)) as pool:
        return sum(map(len, pool.map(lambda t: isolation.case_budgets(t[0], t[1], backend), todo)))


def _heaviest_first(course_dir: Path, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`pairs` with the submissions that changed the most bytes of their released files first (more of
    their kernels compile and run every case), so that the light ones (stubs left as they were) fill the
    workers' last gaps instead of a heavy one running alone at the end."""
    def changed(pair) -> int:
        release, folder = course_dir / "release" / pair[1], course_dir / "submitted" / pair[0] / pair[1]
        total = 0
        for path in (folder.iterdir() if folder.is_dir() else ()):
            if path.suffix == ".ipynb" or path.is_symlink() or not path.is_file():
                continue
            released, size = release / path.name, path.stat().st_size
            try:
                same = released.stat().st_size == size and released.read_bytes() == path.read_bytes()
            except OSError:
                same = False
            total += 0 if same else size
        return total

    return sorted(pairs, key=changed, reverse=True)


def grade(course_dir: Path, pairs: list[tuple[str, str]], *, address=None, gpus_per_task: float = 1.0,
          workers: int | None = None, timeout: float = TASK_TIMEOUT_S, on_result=None) -> list[Result]:
    """Grade `pairs` (on Ray, or in a local pool: `_pool`; the heaviest first), merging each result as it
    arrives; `on_result(result)` after each merge."""
    pool = _pool(address, workers, gpus_per_task)
    try:
        guard = sandbox.unavailable() is not None  # a notebook could reach the course's gradebook
        room = 1 if guard else pool.capacity or len(pairs)  # no sandbox: one at a time
        gradebook = course_dir / "gradebook.db"
        todo, running, results = _heaviest_first(course_dir, pairs), {}, []
        while todo or running:
            while todo and len(running) < room:
                student, assignment = todo.pop(0)
                task = pool.submit(course_dir, student, assignment)
                running[task] = (student, assignment, time.monotonic(), gradebook.read_bytes() if guard else None)
            first = min(started for _, _, started, _ in running.values())
            ready = pool.wait(list(running), max(0.0, first + timeout - time.monotonic()))
            task = ready if ready is not None else min(running, key=lambda t: running[t][2])
            student, assignment, started, before = running.pop(task)
            if ready is None:  # the oldest task ran past --timeout: stopped, its worker with it
                pool.stop(task)
                result = Result(student, assignment, time.monotonic() - started,
                                error=f"nbgrader autograde ran past {timeout:.0f} s; it was stopped")
            else:
                result = pool.result(task)
                if result is None:  # running again in a new worker (the local pool), from now
                    running[task] = (student, assignment, time.monotonic(), before)
                    continue
                if isinstance(result, str):
                    result = Result(student, assignment, time.monotonic() - started, error=result)
            if guard and gradebook.read_bytes() != before:
                for suffix in ("-journal", "-wal", "-shm"):  # nothing may replay the notebook's writes
                    Path(f"{gradebook}{suffix}").unlink(missing_ok=True)
                gradebook.write_bytes(before)
                result.problems.append("the notebook changed the course's gradebook (restored)")
            if result.record is not None:
                merge(course_dir, result)
            results.append(result)
            if on_result:
                on_result(result)
        return results
    finally:
        pool.close()


# ---- reporting ------------------------------------------------------------------------------------

def summary(results: list[Result], seconds: float, skipped: int, csv: Path):
    """A rich renderable: throughput, the slowest submissions, and every failure with its reason."""
    from rich.console import Group
    from rich.table import Table

    done = [r for r in results if r.record is not None]
    rate = len(done) / seconds * 3600 if seconds > 0 else 0.0
    head = Table(title="grade-class", show_header=False)
    head.add_row("graded", f"{len(done)} student-days in {seconds:.0f} s: {rate:.0f} student-days per hour")
    head.add_row("failed (graded again on the next run)", str(len(results) - len(done)))
    head.add_row("skipped (already in the gradebook; --force regrades)", str(skipped))
    head.add_row("nbgrader export", str(csv))
    slow = Table(title="slowest submissions")
    for col in ("student", "day", "seconds", "score"):
        slow.add_column(col)
    for r in sorted(done, key=lambda r: -r.seconds)[:5]:
        slow.add_row(r.student, r.assignment, f"{r.seconds:.0f}", f"{r.score:g} / {r.max_score:g}")
    per_day = Table(title="seconds per student-day")
    for col in ("day", "graded", "mean", "slowest"):
        per_day.add_column(col)
    for day in dict.fromkeys(r.assignment for r in done):
        times = [r.seconds for r in done if r.assignment == day]
        per_day.add_row(day, str(len(times)), f"{sum(times) / len(times):.1f}", f"{max(times):.1f}")
    bad = Table(title="failures and kernels that crashed or hung")
    for col in ("student", "day", "reason"):
        bad.add_column(col)
    for r in results:
        for reason in ([r.error] if r.error else r.problems):
            bad.add_row(r.student, r.assignment, reason)
    return Group(head, per_day, slow, *([bad] if bad.row_count else []))


def export(course_dir: Path) -> Path:
    """`nbgrader export` (its CSV plugin) of the course's gradebook to grades.csv, in this process."""
    from nbgrader.plugins import CsvExportPlugin

    from grader import nbgrader_course as course

    csv = course_dir / "grades.csv"
    with course.gradebook(course_dir) as gb:
        CsvExportPlugin(to=str(csv)).export(gb)
    return csv


def add_arguments(parser) -> None:
    parser.add_argument("course_dir", help="the nbgrader course folder (python -m grader release)")
    parser.add_argument("--days", nargs="+", metavar="DAY", help="assignments to grade (dayNN, dayNN-zh; default all)")
    parser.add_argument("--students", nargs="+", metavar="ID", help="students to grade (default: all in submitted/)")
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="a Ray cluster to join (default: worker processes of this machine)")
    parser.add_argument("--gpus-per-task", type=float, default=1.0, metavar="N",
                        help="GPUs each (student, day) takes on a GPU machine (default 1; 0.5 runs two per GPU)")
    parser.add_argument("--workers", type=int, metavar="N", help="tasks at once on this machine (default: 1 / --gpus-per-task per GPU; "
                        "on the emulator one per core)")
    parser.add_argument("--timeout", type=float, default=TASK_TIMEOUT_S, metavar="SECONDS",
                        help=f"seconds one (student, day) may take before it is stopped (default {TASK_TIMEOUT_S:.0f})")
    parser.add_argument("--force", action="store_true", help="regrade pairs the gradebook already holds")


def main(args) -> int:
    from filelock import FileLock, Timeout
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    course_dir = course_folder(args.course_dir)
    pairs = plan(course_dir, args.days, args.students)
    if args.address:
        _reachable(args.address)
    lock = FileLock(course_dir / LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ValueError(f"another grade-class is running on {course_dir} ({course_dir / LOCK})") from None
    try:
        done = graded(course_dir)
        todo = [p for p in pairs if args.force or p not in done]
        for stale in (course_dir / TASK_DBS).glob("*.db*"):  # left by a killed run
            stale.unlink()
        _ensure_students(course_dir, {s for s, _ in todo})
        console = Console()
        if sandbox.unavailable():
            console.print(f"no sandbox for the notebooks ({sandbox.unavailable()}): one (student, day) at a time")
        start = time.monotonic()
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("failed {task.fields[failed]}"), TimeRemainingColumn(), console=console)
        days = {a: progress.add_task(a, total=sum(p[1] == a for p in todo), failed=0)
                for a in dict.fromkeys(a for _, a in pairs)}
        failed = dict.fromkeys(days, 0)

        def advance(r: Result) -> None:
            failed[r.assignment] += r.record is None
            progress.update(days[r.assignment], advance=1, failed=failed[r.assignment])

        if todo and not args.address and not device.why_no_gpu():  # a cluster's nodes measure on their own GPUs
            with console.status("measuring the solutions' case times (once for the course)"):
                measure_budgets(course_dir, [a for _, a in todo], min(16, os.cpu_count() or 1))
        with progress:
            results = grade(course_dir, todo, address=args.address, gpus_per_task=args.gpus_per_task,
                            workers=args.workers, timeout=args.timeout, on_result=advance) if todo else []
        csv = export(course_dir)
        console.print(summary(results, time.monotonic() - start, len(pairs) - len(todo), csv))
        return 0 if all(r.record is not None for r in results) else 1
    finally:
        lock.release()
