"""The course's days: one table of names and titles, the only place the list of days is kept.

It imports nothing from the course, so every module can import it. A new day (days 15-16, say) is one
more row here; its exercises go in grader/exercises/dayNN.py, and a day without them yet is "coming".
"""
from __future__ import annotations

import re
from dataclasses import dataclass


class UnknownDay(ValueError):
    """A day the course does not have; its English text here, the lessons' language at the door that
    shows it (`grader.messages.said`)."""

    def __init__(self, day, first, last):
        self.fields = {"day": repr(day), "first": first.name, "last": last.name, "lo": first.number,
                       "hi": last.number}
        super().__init__(f"unknown day {day!r}: expected {first.name} .. {last.name} "
                         f"(or a number {first.number}-{last.number})")


@dataclass(frozen=True)
class Day:
    name: str      # "day01"
    title: str     # what the day teaches, in English
    title_zh: str  # the same, in Chinese (the lessons in notebooks/zh/)

    @property
    def number(self) -> int:
        return int(self.name[3:])


TABLE = (
    Day("day01", "CUDA model, indexing, launch configuration, JIT compile cache",
        "CUDA 编程模型、索引、启动配置、JIT 编译缓存"),
    Day("day02", "memory coalescing and vectorised access", "合并访存与向量化访问"),
    Day("day03", "PTX inline asm, low-level math, warp shuffles", "PTX 内联汇编、底层数学函数、线程束洗牌"),
    Day("day04", "shared memory and bank conflicts", "共享内存与存储体冲突"),
    Day("day05", "warp-level programming: shuffles, ballot, scan, softmax", "线程束级编程：洗牌、ballot、扫描、softmax"),
    Day("day06", "multi-level reduction and RMSNorm", "多级归约与 RMSNorm"),
    Day("day07", "asynchronous copy: cp.async pipelines", "异步拷贝：cp.async 流水线"),
    Day("day08", "CUB and ragged batches (indptr)", "CUB 与不规则批次 (indptr)"),
    Day("day09", "tensor cores: mma.sync and ldmatrix", "张量核心：mma.sync 与 ldmatrix"),
    Day("day10", "GEMM with a config space and autotuning", "GEMM：配置空间与自动调优"),
    Day("day11", "decode attention: online softmax, GQA, paged KV, split-KV",
        "解码注意力：在线 softmax、GQA、分页 KV、split-KV"),
    Day("day12", "prefill attention: FlashAttention-2 with mma.sync", "预填充注意力：基于 mma.sync 的 FlashAttention-2"),
    Day("day13", "the JIT system: templates and a compile cache", "JIT 系统：模板与编译缓存"),
    Day("day14", "framework integration and the capstone", "框架集成与综合项目"),
    Day("day15", "Hopper GEMM: wgmma, TMA, mbarrier and warp specialization (sm_90a)",
        "Hopper GEMM：wgmma、TMA、mbarrier 与线程束专用化 (sm_90a)"),
    Day("day16", "Hopper attention: FlashAttention-3-style prefill with wgmma, TMA and ping-pong (sm_90a)",
        "Hopper 注意力：基于 wgmma、TMA 与乒乓调度的 FlashAttention-3 式预填充 (sm_90a)"),
)
NAMES = tuple(d.name for d in TABLE)
_DAY = re.compile(r"^(?:day)?0*(\d{1,2})$")


def _row(day: int | str) -> Day:
    m = _DAY.match(str(day).strip().lower())
    for row in TABLE:
        if m and row.number == int(m.group(1)):
            return row
    first, last = TABLE[0], TABLE[-1]
    raise UnknownDay(day, first, last)


def day_name(day: int | str) -> str:
    """'day02' from 2, '2', '02' or 'day2'; a ValueError naming the course's days otherwise."""
    return _row(day).name


def title(day: int | str, lang: str = "en") -> str:
    """What the day teaches, in English ('en') or Chinese ('zh')."""
    if lang not in ("en", "zh"):
        raise ValueError(f"language {lang!r}: expected en or zh")
    row = _row(day)
    return row.title_zh if lang == "zh" else row.title
