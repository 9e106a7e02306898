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
}


def say(key: str, lang: str | None = None, **fields) -> str:
    """The catalogue's text for `key` in `lang` (default: the lessons' language), fields filled in."""
    from grader.language import language

    entry = CATALOGUE[key]
    return entry.get(lang or language(), entry["en"]).format(**fields)


def status(word: str, lang: str | None = None) -> str:
    """An outcome's status (passed, failed, crashed, timed out, not run) as the student reads it."""
    key = f"status.{word}"
    return say(key, lang) if key in CATALOGUE else word
