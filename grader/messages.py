"""What the course says to a student, in English and Chinese: one catalogue, read through `say`.

    say("differ", name=..., count=3, ...)   # in the lessons' language (grader.language)

Each entry holds the same fields in both languages (tests/test_messages.py checks that every entry
has both, with the same placeholders, and that every key the code asks for exists). The Chinese uses
the course glossary's terms (notebooks/zh/glossary.md). Names inside a message (an exercise, an
output such as "strided_gather out") stay as the code names them.
"""
from __future__ import annotations

CATALOGUE: dict[str, dict[str, str]] = {
    # ---- checks: how a kernel's output differs from the reference (grader.checks) ----
    "replay": {"en": " [seed {seed}: rerun with {env}={seed}]",
               "zh": " [种子 {seed}：用 {env}={seed} 重新运行]"},
    "shape": {"en": "{name}: shape {got}, expected {expected}{replay}",
              "zh": "{name}：形状为 {got}，期望 {expected}{replay}"},
    "differ": {"en": "{name}: {count} of {size} elements differ; first at index {index}: expected {expected}, "
                     "got {got}{replay}",
               "zh": "{name}：{size} 个元素中有 {count} 个不同；第一个在下标 {index}：期望 {expected}，"
                     "得到 {got}{replay}"},
    "nan.never": {"en": "still hold the NaN poison written before launch: never written",
                  "zh": "仍是启动前写入的 NaN 毒值：从未被写入"},
    "nan.computed": {"en": "are NaN the kernel computed (not the poison): 0 x inf, inf - inf, 0 / 0 or the root "
                           "or log of a negative, e.g. an eps outside the square root",
                     "zh": "是核函数算出的 NaN（不是毒值）：0 x inf、inf - inf、0 / 0，或负数的平方根或对数，"
                           "例如 eps 放在了平方根外面"},
    "nan.part": {"en": "{count} of {size} elements {what}; first at index {index}, expected {expected}",
                 "zh": "{size} 个元素中有 {count} 个{what}；第一个在下标 {index}，期望 {expected}"},
    "and": {"en": "; and ", "zh": "；并且"},
    "inf": {"en": "{name}: {count} elements are Inf; first at index {index}, expected {expected}{replay}",
            "zh": "{name}：有 {count} 个元素是 Inf；第一个在下标 {index}，期望 {expected}{replay}"},
    "worst": {"en": "worst at index {index}: expected {expected}, got {got} (relative error {rel})",
              "zh": "最差在下标 {index}：期望 {expected}，得到 {got}（相对误差 {rel}）"},
    "norm": {"en": "{name} ({dtype}): relative error norm {err} exceeds {rtol}; {detail}{replay}",
             "zh": "{name}（{dtype}）：相对误差范数 {err} 超过 {rtol}；{detail}{replay}"},
    "outside": {"en": "{name} ({dtype}): {count} of {size} elements outside rtol={rtol}, atol={atol}; "
                      "{detail}{replay}",
                "zh": "{name}（{dtype}）：{size} 个元素中有 {count} 个超出 rtol={rtol}、atol={atol}；"
                      "{detail}{replay}"},
    "left_alone": {"en": "{name}: {count} elements written that must be left alone; first at index {index} "
                         "(got {got}){replay}",
                   "zh": "{name}：写入了 {count} 个必须保持不动的元素；第一个在下标 {index}（得到 {got}）{replay}"},
    # ---- a grade: the result of an exercise (grader.isolation) ----
    "outcome": {"en": "{exercise}: {status} ({passed}/{total} cases)",
                "zh": "{exercise}：{status}（{passed}/{total} 个用例）"},
    "status.passed": {"en": "passed", "zh": "通过"},
    "status.failed": {"en": "failed", "zh": "未通过"},
    "status.crashed": {"en": "crashed", "zh": "崩溃"},
    "status.timed out": {"en": "timed out", "zh": "超时"},
    "status.not run": {"en": "not run", "zh": "未运行"},
    "timed_out": {"en": "timed out after {seconds} s in case {case} (a kernel that never finishes?); the process "
                        "was stopped",
                  "zh": "用例 {case} 运行 {seconds} 秒后超时（核函数永远不结束？）；进程已被停止"},
    "emulator.not_run": {"en": "not run on the emulator (too large for a CPU; a GPU's grade runs them): {cases}",
                         "zh": "模拟器上没有运行（对 CPU 来说太大；在 GPU 上评分时会运行）：{cases}"},
    "emulator.unchecked": {"en": "; sizes past {bounds} are unchecked here ({cases})",
                           "zh": "；超过 {bounds} 的规模在这里没有检查（{cases}）"},
    "not_run.ended": {"en": "not run: the checking process of {exercise} ended at case {case} ({status}, reported "
                            "above)",
                      "zh": "未运行：{exercise} 的检查进程在用例 {case} 处结束（{status}，见上文）"},
    # ---- a lesson's first cell (grader.notebook.setup) ----
    "setup.no_gpu": {"en": "{day}: no GPU here ({reason}).\nWorks here: reading, editing the .cu files, `python -m "
                           "grader compile` and `python -m grader sass`.\nCells that launch kernels will stop with a "
                           "NoGPU error: COURSE_BACKEND=cupy asks for a GPU. Without that setting (or with "
                           "COURSE_BACKEND=emulator) kernels run on the CPU, on the PTX emulator (small sizes, "
                           "nothing timed).",
                     "zh": "{day}：这里没有 GPU（{reason}）。\n这里可以：阅读、编辑 .cu 文件，运行 `python -m grader "
                           "compile` 和 `python -m grader sass`。\n启动核函数的单元格会以 NoGPU 错误停止："
                           "COURSE_BACKEND=cupy 要求有 GPU。不设置它（或设置 COURSE_BACKEND=emulator）时，核函数在 "
                           "CPU 上的 PTX 模拟器中运行（规模较小，不计时）。"},
    "setup.emulator": {"en": "{day} on the {device} for {target}: kernels run on the CPU, slowly; large arrays are "
                             "made smaller (nb.size) and nothing is timed (memory statistics instead).",
                       "zh": "{day} 运行在 {device} 上，目标 {target}：核函数在 CPU 上运行，较慢；大数组会变小"
                             "（nb.size），不计时（改为显示内存统计）。"},
    "setup.gpu": {"en": "{day} on {device} ({sm}, {sms} SMs, L2 {l2} MiB)",
                  "zh": "{day} 运行在 {device} 上（{sm}，{sms} 个 SM，L2 {l2} MiB）"},
    "go_on": {"en": "(not passed yet: the notebook goes on, so Run All still runs the cells below)",
              "zh": "（还没有通过：笔记本会继续运行，\u201c全部运行\u201d仍会运行下面的单元格）"},
    # ---- the command line (grader.cli) ----
    "cli.error": {"en": "error: {message}", "zh": "错误：{message}"},
    "cli.unexpected": {"en": "error: {kind}: {message} (COURSE_TRACEBACK=1 shows where)",
                       "zh": "错误：{kind}：{message}（设置 COURSE_TRACEBACK=1 可看到出错位置）"},
    "cli.compile": {"en": "error: {path} does not compile:{sep}{log}", "zh": "错误：{path} 编译失败：{sep}{log}"},
    "cli.interrupted": {"en": "interrupted", "zh": "已中断"},
    "cli.usage": {"en": "{prog}: error: {message} (see {prog} --help)",
                  "zh": "{prog}：错误：{message}（见 {prog} --help）"},
    "day.unknown": {"en": "unknown day {day}: expected {first} .. {last} (or a number {lo}-{hi})",
                    "zh": "没有这一天 {day}：应为 {first} .. {last}（或数字 {lo}-{hi}）"},
    "exercise.unknown": {"en": "{day} has no exercise {name} (it has: {known})",
                         "zh": "{day} 没有练习 {name}（它有：{known}）"},
    "none_yet": {"en": "none yet", "zh": "暂无"},
    # ---- where kernels run (the backends) ----
    "backend.emulator": {"en": "PTX emulator (CPU, numpy)", "zh": "PTX 模拟器（CPU，numpy）"},
    "backend.not_hardware": {"en": "kernels run on the PTX emulator here, not on a CUDA GPU ({why})",
                             "zh": "这里的核函数 (kernel) 在 PTX 模拟器上运行，而不是在 CUDA GPU 上（{why}）"},
    "backend.no_driver": {"en": "no GPU: this machine has no NVIDIA driver",
                          "zh": "没有 GPU：这台机器没有 NVIDIA 驱动"},
    # ---- `python -m grader progress` ----
    "progress.day": {"en": "{count} exercises, {edited} edited; {result}",
                     "zh": "{count} 个练习，已编辑 {edited} 个；{result}"},
    "progress.coming": {"en": "coming", "zh": "即将推出"},
    "progress.not_checked": {"en": "not checked yet: pytest days/{day}", "zh": "还没有检查：pytest days/{day}"},
    "progress.passed": {"en": "{passed} of {total} passed (last run: {by}, {when})",
                        "zh": "{total} 个中通过 {passed} 个（上次运行：{by}，{when}）"},
    "progress.hints": {"en": "; hint levels used: {levels}", "zh": "；用过的提示级别：{levels}"},
    "progress.answers": {"en": "; model answers seen: {questions}", "zh": "；看过的参考答案：{questions}"},
    "progress.unlocked": {"en": "; course headers unlocked", "zh": "；课程头文件已解锁"},
    # ---- `python -m grader show-config` ----
    "config.runtime": {"en": "CUDA runtime (cupy built for)", "zh": "CUDA 运行时（cupy 构建时所用）"},
    "config.not_installed": {"en": "not installed", "zh": "未安装"},
    "config.driver": {"en": "driver (CUDA version it supports)", "zh": "驱动（它支持的 CUDA 版本）"},
    "config.backend": {"en": "backend", "zh": "后端"},
    "config.no_gpu": {"en": "none: {why}", "zh": "无：{why}"},
    "config.without_gpu": {"en": "works without a GPU", "zh": "没有 GPU 也能用"},
    "config.without_gpu_list": {"en": "compile, sass, stubs, progress, release, the CPU tests",
                                "zh": "compile、sass、stubs（桩文件）、progress、release、CPU 上的测试"},
    "config.kernels_from": {"en": "kernels loaded from", "zh": "核函数加载自"},
    "config.kernel_cache": {"en": "kernel cache (CUPY_CACHE_DIR)", "zh": "核函数缓存（CUPY_CACHE_DIR）"},
    "config.include_paths": {"en": "include paths", "zh": "头文件搜索路径"},
    "config.options": {"en": "NVRTC options", "zh": "NVRTC 编译选项"},
    # ---- the self-check's summary (grader.pytest_plugin) ----
    "table.exercise": {"en": "exercise", "zh": "练习"},
    "table.skipped": {"en": "skipped", "zh": "跳过"},
    "table.result": {"en": "result", "zh": "结果"},
    "table.of_ceiling": {"en": "% of ceiling", "zh": "占上限的 %"},
    "table.ratio": {"en": "{ratio} of {ceiling}", "zh": "{ceiling} 的 {ratio}"},
    "summary.title": {"en": "course self-check: {which}", "zh": "课程自检：{which}"},
    "summary.solutions": {"en": "solutions/", "zh": "solutions/（课程的答案）"},
    "summary.yours": {"en": "your kernels (days/)", "zh": "你的核函数（days/）"},
    "summary.first_failure": {"en": "{exercise}: {cases} failed; first: {first}",
                              "zh": "{exercise}：{cases} 未通过；第一个：{first}"},
    "summary.cases": {"en": "{n} cases", "zh": "{n} 个用例"},
    "summary.one_case": {"en": "1 case", "zh": "1 个用例"},
    "summary.skipped": {"en": "{cases} skipped (every reason is in pytest's summary below); the first: {first}",
                        "zh": "跳过 {cases}（每个原因都在下面 pytest 的摘要里）；第一个：{first}"},
}


def say(key: str, lang: str | None = None, **fields) -> str:
    """The catalogue's text for `key` in `lang` (default: the lessons' language), fields filled in."""
    from grader.language import language

    entry = CATALOGUE[key]
    return entry.get(lang or language(), entry["en"]).format(**fields)


def said(e: BaseException) -> str | None:
    """A course exception that carries its fields (an unknown day or exercise) in the lessons' language;
    None for any other exception."""
    from grader.days import UnknownDay
    from grader.exercises import UnknownExercise

    if isinstance(e, UnknownDay):
        return say("day.unknown", **e.fields)
    if isinstance(e, UnknownExercise):
        return say("exercise.unknown", **{**e.fields, "known": e.fields["known"] or say("none_yet")})
    return None


def status(word: str, lang: str | None = None) -> str:
    """An outcome's status (passed, failed, crashed, timed out, not run) as the student reads it."""
    key = f"status.{word}"
    return say(key, lang) if key in CATALOGUE else word
