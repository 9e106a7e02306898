"""grade-class on one GPU machine without Ray: worker processes of this machine, 1 / --gpus-per-task per
GPU, each seeing its own GPU only (no GPU here: the pool is checked with the workers' start stood in)."""
import os

import pytest

from grader import classgrade, device


@pytest.fixture
def started(monkeypatch):
    """The GPU each started worker was given (instead of starting it)."""
    gpus = []
    monkeypatch.setattr(device, "emulated", lambda: False)
    monkeypatch.setattr(classgrade._LocalPool, "_start", lambda self, gpu: gpus.append(gpu) or (None, None, gpu))
    return gpus


def test_two_tasks_per_gpu_each_worker_on_its_own_gpu(started, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,5")
    pool = classgrade._pool(None, None, 0.5)
    assert isinstance(pool, classgrade._LocalPool) and pool.capacity == 4
    assert sorted(started) == ["2", "2", "5", "5"]


def test_one_task_per_gpu_by_default_and_workers_overrides(started, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    assert classgrade._pool(None, None, 1.0).capacity == 2
    assert classgrade._pool(None, 3, 1.0).capacity == 3


def test_bad_gpu_shares_say_what_is_wrong(started, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(ValueError, match="names no GPU"):
        classgrade._pool(None, None, 1.0)
    with pytest.raises(ValueError, match="expected more than 0"):
        classgrade._pool(None, None, 0)


def test_a_worker_runs_on_the_gpu_it_was_given(monkeypatch, tmp_path):
    """_serve pins its process to its GPU before anything imports CUDA, and to its share of the cores in
    BLAS threads (16 workers each running float64 references on 32 threads oversubscribe a machine); its
    grading children and sandboxed notebooks inherit both."""
    from grader import isolation, limits, sandbox

    for name in ("CUDA_VISIBLE_DEVICES", *limits.THREAD_ENV):
        monkeypatch.delenv(name, raising=False)

    class Stop(Exception):
        pass

    class Conn:
        def recv(self):
            raise Stop

    monkeypatch.setattr("os.dup2", lambda *a: None)
    with pytest.raises(Stop):
        classgrade._serve(Conn(), "3", 4)
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "3"
    for env in (isolation._child_env(tmp_path), sandbox.sandbox_env(dict(os.environ))):
        assert env["CUDA_VISIBLE_DEVICES"] == "3" and all(env[name] == "4" for name in limits.THREAD_ENV), env
