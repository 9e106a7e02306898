"""What the course says to a student, in English and Chinese: one catalogue, read through `say`.

    say("differ", name=..., count=3, ...)   # in the lessons' language (grader.language)

Each entry holds the same fields in both languages (tests/test_messages.py checks that every entry
has both, with the same placeholders, and that every key the code asks for exists). The Chinese uses
the course glossary's terms (notebooks/zh/glossary.md). Names inside a message (an exercise, an
output such as "strided_gather out") stay as the code names them.
"""
from __future__ import annotations

import functools
import re

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
    "nan.also": {"en": "; other elements differ too: {count}, the first at index {index}: expected {expected}, got {got}",
                 "zh": "；另有 {count} 个元素不同，第一个在下标 {index}：期望 {expected}，得到 {got}"},
    "inf": {"en": "{name}: Inf in {count} {elements}; first at index {index}, expected {expected}{replay}",
            "zh": "{name}：有 {count} 个{elements}是 Inf；第一个在下标 {index}，期望 {expected}{replay}"},
    "worst": {"en": "worst at index {index}: expected {expected}, got {got} (relative error {rel})",
              "zh": "最差在下标 {index}：期望 {expected}，得到 {got}（相对误差 {rel}）"},
    "norm": {"en": "{name} ({dtype}): relative error norm {err} exceeds {rtol}; {detail}{replay}",
             "zh": "{name}（{dtype}）：相对误差范数 {err} 超过 {rtol}；{detail}{replay}"},
    "outside": {"en": "{name} ({dtype}): {count} of {size} elements outside rtol={rtol}, atol={atol}; "
                      "{detail}{replay}",
                "zh": "{name}（{dtype}）：{size} 个元素中有 {count} 个超出 rtol={rtol}、atol={atol}；"
                      "{detail}{replay}"},
    "left_alone": {"en": "{name}: {count} {elements} written that must be left alone; first at index {index} "
                         "(got {got}){replay}",
                   "zh": "{name}：写入了 {count} 个必须保持不动的{elements}；第一个在下标 {index}（得到 {got}）{replay}"},
    # ---- a grade: the result of an exercise (grader.isolation) ----
    "outcome": {"en": "{exercise}: {status} ({passed}/{total} cases)",
                "zh": "{exercise}：{status}（{passed}/{total} 个用例）"},
    "ceiling.copy bandwidth": {"en": "copy bandwidth", "zh": "拷贝带宽"},
    "ceiling.cuBLAS gemv": {"en": "cuBLAS gemv", "zh": "cuBLAS 的 GEMV"},
    "ceiling.its ceiling": {"en": "its ceiling", "zh": "它的上限"},
    "ceiling.the best torch SDPA backend": {"en": "the best torch SDPA backend", "zh": "torch 最快的 SDPA 后端"},
    "status.passed": {"en": "passed", "zh": "通过"},
    "status.failed": {"en": "failed", "zh": "未通过"},
    "status.crashed": {"en": "crashed", "zh": "崩溃"},
    "crashed": {"en": "crashed: ", "zh": "崩溃："},
    "status.timed out": {"en": "timed out", "zh": "超时"},
    "status.FAILED": {"en": "FAILED", "zh": "未通过"},
    "status.skipped": {"en": "skipped", "zh": "跳过"},
    "status.not run": {"en": "not run", "zh": "未运行"},
    "timed_out": {"en": "timed out after {seconds} s in case {case} (a kernel that never finishes?); the process "
                        "was stopped",
                  "zh": "用例 {case} 运行 {seconds} 秒后超时（核函数永远不结束？）；进程已被停止"},
    "emulator.not_run": {"en": "not run on the emulator (too large for a CPU; a GPU's grade runs them): {cases}",
                         "zh": "模拟器上没有运行（对 CPU 来说太大；在 GPU 上评分时会运行）：{cases}"},
    "emulator.too_large": {"en": "too large for the emulator ({size} > {most} elements; the smaller cases of {exercise} "
                                 "ran). {env}=1 runs it anyway, slowly; a GPU runs every case.",
                           "zh": "对模拟器来说太大（{size} > {most} 个元素；{exercise} 较小的用例已运行）。{env}=1 "
                                 "也可以强行运行，但很慢；在 GPU 上会运行所有用例。"},
    "emulator.no_timing": {"en": "timings are not emulated (COURSE_BACKEND=emulator): run the performance tests on a "
                                 "GPU; `python -m grader.emutools.day_report dayNN` shows the kernels' memory "
                                 "statistics instead",
                           "zh": "模拟器不模拟计时（COURSE_BACKEND=emulator）：请在 GPU 上运行性能测试；"
                                 "`python -m grader.emutools.day_report dayNN` 会改为显示各核函数的访存统计"},
    "emulator.not_emulated": {"en": "timings are not emulated: the emulator runs kernels on the CPU (COURSE_BACKEND="
                                    "emulator), so there is nothing to time. Benchmarks need a CUDA GPU; the emulator "
                                    "reports memory statistics instead (grader.emulator.report)",
                              "zh": "模拟器不模拟计时：模拟器在 CPU 上运行核函数（COURSE_BACKEND=emulator），没有什么可计时的。"
                                    "基准测试需要 CUDA GPU；模拟器改为报告访存统计（grader.emulator.report）"},
    "emulator.no_flush": {"en": "flushing L2 before a timed run: {why}", "zh": "在计时运行前清空 L2：{why}"},
    "emulator.no_cupy": {"en": "{name} is not available on the emulator (COURSE_BACKEND=emulator); it needs a GPU",
                         "zh": "{name} 在模拟器上不可用（COURSE_BACKEND=emulator）；它需要 GPU"},
    "backend.unknown": {"en": "{setting}: expected one of {known}", "zh": "{setting}：应为 {known} 之一"},
    "hints.no_solution": {"en": "no solution {path} to take hints from", "zh": "没有可以从中取提示的参考解答 {path}"},
    "answers.no_question": {"en": "{day} has no thought question {n} (it has {count}: 1 to {count}) in {where}",
                            "zh": "{where} 中 {day} 没有第 {n} 道思考题（它有 {count} 道：1 到 {count}）"},
    "answers.no_model": {"en": "{day} question {n}: the instructor's notebook holds no model answer",
                         "zh": "{day} 第 {n} 题：教师笔记本里没有参考答案"},
    "answers.no_notebook": {"en": "no notebook {path}", "zh": "没有笔记本 {path}"},
    "emulator.fault": {"en": "{what} failed on the emulator: {fault}", "zh": "{what} 在模拟器上出错：{fault}"},
    "emulator.cubin": {"en": "{path}: a cubin is machine code for a GPU; the PTX emulator runs modules built from source",
                       "zh": "{path}：cubin 是 GPU 的机器码；PTX 模拟器只运行从源代码构建的模块"},
    "emulator.memptr": {"en": "on the emulator, memptr must be an emulated device array (module.get_global)",
                        "zh": "在模拟器上，memptr 必须是模拟的设备数组（module.get_global）"},
    "emulator.memptr_small": {"en": "memptr holds {holds} bytes, {requested} requested",
                              "zh": "memptr 只有 {holds} 字节，却请求了 {requested} 字节"},
    "emulator.unchecked": {"en": "; sizes past {bounds} are unchecked here ({cases})",
                           "zh": "；超过 {bounds} 的规模在这里没有检查（{cases}）"},
    "boundary.elements": {"en": "2^24 elements", "zh": "2^24 个元素"},
    "boundary.bytes": {"en": "2^31 bytes", "zh": "2^31 字节"},
    "failures.more": {"en": "\n... and {n} more", "zh": "\n……另有 {n} 个"},
    "not_run.whole": {"en": "{first} (the whole message is on the first failure of {exercise})",
                      "zh": "{first}（完整信息在 {exercise} 的第一个失败里）"},
    "not_run.stopped": {"en": "not run: the checking process of {exercise} ended ({first})",
                        "zh": "未运行：{exercise} 的检查进程已结束（{first}）"},
    "runner.needs_gpu": {"en": "needs a CUDA GPU: {reason}. Compile and SASS checks still run without one (python -m "
                               "grader compile {day}).",
                         "zh": "需要 CUDA GPU：{reason}。没有 GPU 也能做编译和 SASS 检查（python -m grader compile {day}）。"},
    "runner.needs_arch": {"en": "{exercise} needs sm_{needed} or newer; this GPU is {have} (COURSE_BACKEND=emulator runs "
                                "it on the CPU)",
                          "zh": "{exercise} 需要 sm_{needed} 或更新的 GPU；这块 GPU 是 {have}（COURSE_BACKEND=emulator "
                                "可在 CPU 上运行它）"},
    "runner.needs_exact_arch": {"en": "{exercise} needs an sm_{needed} GPU (sm_{needed}a instructions: wgmma, TMA); this "
                                      "GPU is {have} (COURSE_BACKEND=emulator runs it on the CPU)",
                                "zh": "{exercise} 需要 sm_{needed} 的 GPU（sm_{needed}a 指令：wgmma、TMA）；这块 GPU 是 "
                                      "{have}（COURSE_BACKEND=emulator 可在 CPU 上运行它）"},
    "runner.solution": {"en": "the course's solution", "zh": "课程的参考解答"},
    "runner.no_benchmark": {"en": "{exercise} has no benchmark", "zh": "{exercise} 没有基准测试"},
    "runner.bad_array": {"en": "an array of dtype {dtype}, shape {shape}", "zh": "dtype 为 {dtype}、形状为 {shape} 的数组"},
    "runner.array_bytes": {"en": "an array of shape {shape} with {count} bytes", "zh": "形状为 {shape} 却有 {count} 字节的数组"},
    "runner.bad_value": {"en": "a value of type {type}", "zh": "类型为 {type} 的值"},
    "paths.instructor_only": {"en": "{what} is an instructor feature: this student edition of the course has no solutions/",
                              "zh": "{what} 是教师功能：这份学生版课程没有 solutions/"},
    "tensor_map.dtype": {"en": "tensor_map: dtype {dtype} (use uint8 (FP8 bits), float16, bfloat16 or float32)",
                         "zh": "tensor_map：dtype 为 {dtype}（请用 uint8（FP8 的位）、float16、bfloat16 或 float32）"},
    "tensor_map.rank": {"en": "tensor_map: a {rank}-D array (use 2-D or 3-D)",
                        "zh": "tensor_map：{rank} 维数组（请用 2 维或 3 维）"},
    "tensor_map.box": {"en": "tensor_map: box {box} must have {rank} sizes in 1..256",
                       "zh": "tensor_map：box {box} 必须有 {rank} 个大小，每个在 1..256 之间"},
    "tensor_map.layout": {"en": "tensor_map: the array must be row-major with rows a multiple of 16 bytes",
                          "zh": "tensor_map：数组必须按行主序存放，每行字节数是 16 的倍数"},
    "tensor_map.swizzle": {"en": "tensor_map: swizzle {swizzle} (use one of {swizzles})",
                           "zh": "tensor_map：交错排布 swizzle={swizzle}（请用 {swizzles} 之一）"},
    "tensor_map.inner": {"en": "tensor_map: the box's inner dimension is {inner} bytes: it must be a multiple of 16",
                         "zh": "tensor_map：box 的最内维是 {inner} 字节：它必须是 16 的倍数"},
    "tensor_map.inner_swizzled": {"en": "tensor_map: the box's inner dimension is {inner} bytes: it must be a multiple "
                                        "of 16 and at most the swizzle span, {swizzle}",
                                  "zh": "tensor_map：box 的最内维是 {inner} 字节：它必须是 16 的倍数，且不超过交错排布的跨度 "
                                        "{swizzle}"},
    "runner.malformed": {"en": "{exercise}: the student's process returned malformed data ({error})",
                         "zh": "{exercise}：学生的进程返回的数据格式不对（{error}）"},
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
    "child.exited": {"en": "exited with status {code}", "zh": "以状态 {code} 退出"},
    "child.killed": {"en": "was killed by {name} (signal {number})", "zh": "被 {name}（信号 {number}）终止"},
    "child.killed_by": {"en": "was killed by signal {number}", "zh": "被信号 {number} 终止"},
    "isolation.missing": {"en": "{name} is missing from {folder}", "zh": "{folder} 中缺少 {name}"},
    "isolation.not_a_file": {"en": "{name} in {folder} is a link or not a regular file: hand in the file itself",
                             "zh": "{folder} 中的 {name} 是链接或不是普通文件：请提交文件本身"},
    "isolation.too_large": {"en": "{name} is larger than {mib} MiB", "zh": "{name} 大于 {mib} MiB"},
    "isolation.still_running": {"en": "still running after {seconds:.0f} s; the process was stopped",
                                "zh": "{seconds:.0f} 秒后仍在运行；进程已被终止"},
    "isolation.needs_gpu": {"en": "needs a CUDA GPU or the emulator: {reason}", "zh": "需要 CUDA GPU 或模拟器：{reason}"},
    "isolation.race": {"en": "racecheck: {what} in {kernel} at {where}: threads of a block access the same shared "
                             "memory without a __syncthreads() between them; the result was right by luck",
                       "zh": "racecheck：{kernel} 中 {where} 处{what}：同一线程块的线程访问同一块共享内存，中间没有 "
                             "__syncthreads()；结果正确只是运气"},
    "isolation.race_not_run": {"en": "(racecheck not run: {why})", "zh": "（racecheck 没有运行：{why}）"},
    "isolation.race_unfinished": {"en": "(racecheck did not finish: {status}: {first})",
                                  "zh": "（racecheck 没有运行完：{status}：{first}）"},
    "isolation.no_sandbox": {"en": "(the student's Python ran without a sandbox: {why})",
                             "zh": "（学生的 Python 代码在没有沙箱的情况下运行：{why}）"},
    "isolation.process_died": {"en": "the checking process {how} while running this case",
                               "zh": "检查进程在运行这个用例时{how}"},
    "isolation.between_cases": {"en": "between cases", "zh": "在两个用例之间"},
    "isolation.before_cases": {"en": "before any case ran (compiling?)", "zh": "在任何用例运行之前（还在编译？）"},
    "isolation.before_report": {"en": "before reporting", "zh": "在报告结果之前"},
    "isolation.compile_timeout": {"en": "timed out after {seconds:.0f} s {when}; the process was stopped",
                                  "zh": "{when}超时（{seconds:.0f} 秒）；进程已被终止"},
    "isolation.ended": {"en": "the checking process {how} {when}:", "zh": "检查进程{when}{how}："},
    "autograde.graded_file": {"en": "graded: {name} sha256 {digest}", "zh": "已评分：{name} sha256 {digest}"},
    "autograde.nothing": {"en": "this autograder cell grades nothing the course knows",
                          "zh": "这个自动评分单元格没有评课程认识的任何练习"},
    "autograde.cannot": {"en": "cannot grade {name}: {why}", "zh": "无法评分 {name}：{why}"},
    "autograde.graded_in": {"en": "[graded by the course in {seconds:.0f} s]", "zh": "[课程评分用时 {seconds:.0f} 秒]"},
    "autograde.hidden": {"en": "hidden tests {number} of {name}: {status} ({passed}/{total} cases)",
                         "zh": "{name} 的隐藏测试 {number}：{status}（{passed}/{total} 个用例）"},
    "autograde.hidden_case": {"en": "  hidden case {number}: {status}", "zh": "  隐藏用例 {number}：{status}"},
    "autograde.kind": {"en": " ({kind})", "zh": "（{kind}）"},
    "autograde.kind.nan": {"en": "NaN or Inf in the output, or elements never written",
                           "zh": "输出中有 NaN 或 Inf，或有元素从未被写入"},
    "autograde.kind.wrote": {"en": "wrote where it must not", "zh": "写到了不该写的地方"},
    "autograde.kind.wrong": {"en": "wrong values", "zh": "数值错误"},
    "autograde.withheld": {"en": "{withheld:g} of {points:g} points withheld until a GPU grades them: the emulator "
                                 "did not run the sizes past a boundary its cases never reached ({cases})",
                           "zh": "暂扣 {withheld:g} 分（共 {points:g} 分），等 GPU 评分后计入：模拟器没有运行超出其用例"
                                 "从未到达的边界的规模（{cases}）"},
    "autograde.scored_zero": {"en": "scored zero: {why}", "zh": "得零分：{why}"},
    "autograde.changed_while_graded": {"en": "the submitted {files} changed while it was graded",
                                       "zh": "提交的 {files} 在评分过程中被改动了"},
    "autograde.notebook_note": {"en": "(the notebook itself: {note})", "zh": "（笔记本本身：{note}）"},
    "autograde.not_graded": {"en": "the course did not grade this cell (grader.autograde.GradeKernels is not before "
                                   "RunNotebook in nbgrader's autograde preprocessors)",
                             "zh": "课程没有为这个单元格评分（nbgrader 的 autograde 预处理器中，grader.autograde.GradeKernels "
                                   "不在 RunNotebook 之前）"},
    "autograde.cheat.gradebook": {"en": "the notebook changed the gradebook (restored)",
                                  "zh": "笔记本改动了成绩簿（已恢复）"},
    "autograde.cheat.no_sandbox": {"en": "the notebook ran without the sandbox it was graded for",
                                   "zh": "笔记本没有在评分所依据的沙箱中运行"},
    "autograde.cheat.files": {"en": "the notebook changed files outside its folder: {files}",
                              "zh": "笔记本改动了它文件夹以外的文件：{files}"},
    "autograde.cheat.more": {"en": " and {n} more", "zh": " 等另外 {n} 个"},
    "autograde.cheat.printed": {"en": "the notebook printed hidden tests or solution code",
                                "zh": "笔记本打印了隐藏测试或参考解答的代码"},
    "autograde.hidden_source": {"en": "# (hidden tests: their results are below)", "zh": "# （隐藏测试：结果见下方）"},
    "autograde.cell_timeout": {"en": "cell {cell} ran past its {seconds} s, so the rest of the notebook was not run "
                                      "(a kernel that never finishes holds the GPU until its process ends)",
                               "zh": "第 {cell} 个单元格超过了 {seconds} 秒，笔记本其余部分没有运行"
                                     "（永不结束的核函数会一直占着 GPU，直到它的进程结束）"},
    "autograde.skipped": {"en": "(a lesson demo: not run while autograding, no points in it; it runs when you run "
                                "the notebook)",
                          "zh": "（课程演示：自动评分时不运行，不计分；你自己运行笔记本时会运行）"},
    # ---- the command line (grader.cli) ----
    "cli.error": {"en": "error: {message}", "zh": "错误：{message}"},
    "env.missing": {"en": "the course's Python environment is not active here (no module named {name}): {how}",
                    "zh": "这里没有激活课程的 Python 环境（没有名为 {name} 的模块）：{how}"},
    "env.activate": {"en": "run `source .venv/bin/activate` first (the lab's terminal has it), or use "
                           "`./course.sh check dayNN`",
                     "zh": "先运行 `source .venv/bin/activate`（lab 的终端已经激活），或者改用 `./course.sh check dayNN`"},
    "env.set_up": {"en": "set it up and check with `./course.sh check dayNN` (it makes .venv the first time)",
                   "zh": "用 `./course.sh check dayNN` 搭好环境并检查（第一次运行时它会建好 .venv）"},
    "cli.unexpected": {"en": "error: {kind}: {message} (COURSE_TRACEBACK=1 shows where)",
                       "zh": "错误：{kind}：{message}（设置 COURSE_TRACEBACK=1 可看到出错位置）"},
    "compile.failed": {"en": "{path} does not compile: {first}", "zh": "{path} 编译失败：{first}"},
    "compile.no_source": {"en": "no kernel source {path}", "zh": "没有核函数源文件 {path}"},
    "compile.not_text": {"en": "{name}: error: not a text file (CUDA C source is text)",
                         "zh": "{name}: error: 不是文本文件（CUDA C 源代码是文本）"},
    "include.unreadable": {"en": "{name}: error: cannot read it ({why})", "zh": "{name}: error: 无法读取（{why}）"},
    "include.steering": {"en": "{where}: error: #{kind} {header} is not allowed: the name {header} decides which file "
                               "a CUDA header includes; pick another name",
                         "zh": "{where}: error: 不允许 #{kind} {header}：{header} 这个名字决定了 CUDA 头文件包含哪个文件；"
                               "请换一个名字"},
    "include.directive": {"en": "{where}: error: this #{kind} is not allowed: include headers by name, as "
                                "#include <course/...> or #include \"file.cuh\"",
                          "zh": "{where}: error: 不允许这个 #{kind}：请按名字包含头文件，如 #include <course/...> "
                                "或 #include \"file.cuh\""},
    "include.path": {"en": "{where}: error: #include {header} is not allowed: an include may not name an absolute "
                           "path or go up a folder (..); the course headers are included as <course/...>",
                     "zh": "{where}: error: 不允许 #include {header}：include 不能写绝对路径，也不能进入上一级文件夹（..）；"
                           "课程头文件以 <course/...> 的形式包含"},
    "include.outside": {"en": "{where}: error: #include {header} is not allowed: it is not one of the course's "
                              "headers or a file of your own beside {name}",
                        "zh": "{where}: error: 不允许 #include {header}：它既不是课程的头文件，也不是 {name} 旁边你自己的文件"},
    "include.answer": {"en": "{where}: error: #include {header} is not allowed: the course's own versions of a "
                             "day's exercises come through its headers (<course/...>)",
                       "zh": "{where}: error: 不允许 #include {header}：课程自己版本的各天练习只能通过课程头文件"
                             "（<course/...>）使用"},
    "include.removed": {"en": "({count} diagnostics located outside your files and the course's headers removed)",
                        "zh": "（已删去 {count} 条位于你的文件和课程头文件之外的诊断信息）"},
    "include.removed_one": {"en": "(1 diagnostic located outside your files and the course's headers removed)",
                            "zh": "（已删去 1 条位于你的文件和课程头文件之外的诊断信息）"},
    "cli.compile": {"en": "error: {path} does not compile:{sep}{log}", "zh": "错误：{path} 编译失败：{sep}{log}"},
    "cli.interrupted": {"en": "interrupted", "zh": "已中断"},
    "cli.usage": {"en": "{prog}: error: {message} (see {prog} --help)",
                  "zh": "{prog}：错误：{message}（见 {prog} --help）"},
    "cli.usage_prefix": {"en": "usage: ", "zh": "用法："},
    "cli.positionals": {"en": "positional arguments", "zh": "位置参数"},
    "cli.options": {"en": "options", "zh": "选项"},
    "cli.required": {"en": "the following arguments are required: {names}", "zh": "缺少必需的参数：{names}"},
    "cli.one_of": {"en": "one of the arguments {names} is required", "zh": "参数 {names} 中必须给出一个"},
    "cli.unrecognized": {"en": "unrecognized arguments: {args}", "zh": "无法识别的参数：{args}"},
    "cli.argument": {"en": "argument {name}: {message}", "zh": "参数 {name}：{message}"},
    "cli.choice": {"en": "invalid choice: {value} (choose from {choices})", "zh": "无效的选择：{value}（可选：{choices}）"},
    "cli.one_value": {"en": "expected one argument", "zh": "需要一个值"},
    "cli.some_values": {"en": "expected at least one argument", "zh": "至少需要一个值"},
    "cli.not_allowed": {"en": "not allowed with argument {other}", "zh": "不能与参数 {other} 同时使用"},
    "cli.ambiguous": {"en": "ambiguous option: {option} could match {matches}", "zh": "有歧义的选项：{option} 可以匹配 {matches}"},
    "cli.invalid": {"en": "invalid {kind} value: {value}", "zh": "无效的 {kind} 值：{value}"},
    "cli.positive": {"en": "expected a positive number, got {value}", "zh": "应为正数，得到 {value}"},
    "cli.positive_whole": {"en": "expected a positive whole number, got {value}", "zh": "应为正整数，得到 {value}"},
    "cli.non_negative": {"en": "expected a non-negative number, got {value}", "zh": "应为非负数，得到 {value}"},
    "cli.non_negative_whole": {"en": "expected a non-negative whole number, got {value}", "zh": "应为非负整数，得到 {value}"},
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
    "backend.no_cupy": {"en": "cupy is not installed ({error})", "zh": "没有安装 cupy（{error}）"},
    "backend.unusable": {"en": "no CUDA GPU usable here ({error})", "zh": "这里没有可用的 CUDA GPU（{error}）"},
    "backend.none_found": {"en": "no CUDA GPU found (device count is 0)", "zh": "没有找到 CUDA GPU（设备数为 0）"},
    "backend.old_driver": {"en": "the NVIDIA driver supports CUDA {driver}, older than the CUDA {runtime} of this cupy: "
                                 "update the driver, or use the CUDA 12 wheels (COURSE_CUDA=12 ./course.sh ...)",
                           "zh": "NVIDIA 驱动支持的是 CUDA {driver}，比这个 cupy 的 CUDA {runtime} 旧：请更新驱动，"
                                 "或改用 CUDA 12 的 wheel 包（COURSE_CUDA=12 ./course.sh ...）"},
    "backend.needs_gpu": {"en": "{reason}. Without a GPU you can still edit, compile (`python -m grader compile`) and "
                                "read SASS (`python -m grader sass`); running kernels needs a CUDA GPU.",
                          "zh": "{reason}。没有 GPU 时仍然可以编辑、编译（`python -m grader compile`）和阅读 SASS"
                                "（`python -m grader sass`）；运行核函数需要 CUDA GPU。"},
    "backend.launch_failed": {"en": "launching {what} with grid={grid} block={block} failed: {error}",
                               "zh": "以网格 grid={grid}、线程块 block={block} 启动 {what} 失败：{error}"},
    "backend.failed": {"en": "{what} failed on the GPU: {error}", "zh": "{what} 在 GPU 上失败：{error}"},
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
    "summary.case": {"en": "{case}: {message}", "zh": "{case}：{message}"},
    "summary.notebook_sizes": {"en": "The notebook's `nb.grade(day, exercise)` runs the same cases as pytest here; an "
                                     "autograder cell's hidden cases run at the sizes the notebook names, even on the "
                                     "emulator.",
                               "zh": "笔记本里的 `nb.grade(day, exercise)` 在这里运行与 pytest 相同的用例；自动评分单元格的"
                                     "隐藏用例按笔记本给出的规模运行，在模拟器上也是如此。"},
    "summary.needs_gpu": {"en": "Skipped exercises need a CUDA GPU; `python -m grader compile` and `python -m grader "
                                "sass` work without one.",
                          "zh": "跳过的练习需要 CUDA GPU；`python -m grader compile` 和 `python -m grader sass` 没有 GPU "
                                "也能用。"},
    "summary.cases": {"en": "{n} cases", "zh": "{n} 个用例"},
    "summary.one_case": {"en": "1 case", "zh": "1 个用例"},
    "summary.skipped": {"en": "{cases} skipped (every reason is in pytest's summary below); the first: {first}",
                        "zh": "跳过 {cases}（每个原因都在下面 pytest 的摘要里）；第一个：{first}"},
    # ---- a benchmark (grader.bench, grader.runner, the self-check's perf tests) ----
    "bench.not_timed": {"en": "not timed on the emulator (timings need a CUDA GPU)",
                        "zh": "在模拟器上不计时（计时需要 CUDA GPU）"},
    "bench.untimed_label": {"en": "{label}, {not_timed}", "zh": "{label}，{not_timed}"},
    "bench.last_launch": {"en": "{label}: {not_timed}; memory statistics of its last launch:\n{table}",
                          "zh": "{label}：{not_timed}；它最后一次启动的访存统计：\n{table}"},
    "bench.table_untimed": {"en": "{title}\n{not_timed}: each kernel's memory statistics are printed above",
                            "zh": "{title}\n{not_timed}：每个核函数的访存统计已打印在上面"},
    "bench.size": {"en": "size", "zh": "规模"},
    "bench.ceiling": {"en": "ceiling", "zh": "上限"},
    "bench.units": {"en": "({metric}; % of ceiling)", "zh": "（{metric}；占上限的 %）"},
    "bench.wrong_output": {"en": "{label}: not benchmarked, its output is wrong ({error})",
                           "zh": "{label}：没有做基准测试，它的输出是错的（{error}）"},
    "bench.largest_failed": {"en": "{exercise}: not benchmarked: the largest case {status}: {error}",
                             "zh": "{exercise}：没有做基准测试：最大的用例{status}：{error}"},
    "bench.context_lost": {"en": "not run: an earlier benchmark ({what}) crashed and left the GPU context unusable.",
                           "zh": "未运行：之前的一个基准测试（{what}）崩溃了，GPU 上下文已不可用。"},
    "bench.below_target": {"en": "{exercise}: {label} reaches {ratio} of the ceiling measured in this run at the "
                                 "largest size; the target is {target}. ({table} table above)",
                           "zh": "{exercise}：{label} 在最大规模上达到本次运行测得上限的 {ratio}；目标是 {target}。"
                                 "（{table} 的表格见上）"},
    # ---- the emulator's memory statistics (grader.emulator.report, grader.notebook) ----
    "memory.line": {"en": "source line", "zh": "源代码行"},
    "memory.space": {"en": "space", "zh": "存储空间"},
    "memory.requests": {"en": "requests", "zh": "请求数"},
    "memory.per_request": {"en": "per request", "zh": "每个请求"},
    "memory.ideal": {"en": "ideal", "zh": "理想值"},
    "memory.instruction": {"en": "instruction", "zh": "指令"},
    "memory.ways": {"en": " ({ways}-way)", "zh": "（{ways} 路）"},
    "memory.note": {"en": "global: 32-byte sectors per warp request; shared: wavefronts per request (n-way bank "
                          "conflicts)",
                    "zh": "global：每个线程束请求的 32 字节扇区数；shared：每个请求的波前数（n 路存储体冲突）"},
    "memory.launch": {"en": "{kernel}, grid {grid}, block {block}: {count} warp instructions",
                      "zh": "{kernel}，网格 {grid}，线程块 {block}：{count} 条线程束指令"},
    "memory.mix": {"en": "  instruction mix: {mix}", "zh": "  指令构成：{mix}"},
    "memory.none": {"en": "  (no memory instruction)", "zh": "  （没有访存指令）"},
    "memory.summary": {"en": "{kind} {requests} requests, {per} {unit} each (ideal {ideal})",
                       "zh": "{kind} {requests} 个请求，每个请求 {per} 个{unit}（理想 {ideal}）"},
    "memory.sectors": {"en": "sectors", "zh": "扇区"},
    "memory.wavefronts": {"en": "wavefronts", "zh": "波前"},
    "memory.no_access": {"en": "no global or shared memory accesses", "zh": "没有全局内存或共享内存访问"},
    "memory.instead": {"en": "{exercise}: not timed on the emulator (benchmarks need a CUDA GPU). What it measures "
                             "instead, on the check with {case}:",
                       "zh": "{exercise}：在模拟器上不计时（基准测试需要 CUDA GPU）。它改为给出下面的统计，"
                             "所用的检查为 {case}："},
    "memory.check_failed": {"en": " the check failed: {error}", "zh": "检查未通过：{error}"},
    "memory.version": {"en": "{label}:", "zh": "{label}："},
    # ---- an open design's verdict (grader.exercises.open_design) ----
    "design.plan": {"en": "grid ({gx}, {gy}), block {block}, {shared} B dynamic shared",
                    "zh": "网格 ({gx}, {gy})，线程块 {block}，{shared} B 动态共享内存"},
    "design.grid_x": {"en": "grid.x = {value} (1 .. 2^31 - 1)", "zh": "网格 grid.x = {value}（应为 1 .. 2^31 - 1）"},
    "design.grid_y": {"en": "grid.y = {value} (1 .. 65535)", "zh": "网格 grid.y = {value}（应为 1 .. 65535）"},
    "design.block": {"en": "block.x = {value} (a multiple of 32 from 32 to 1024)",
                     "zh": "线程块 block.x = {value}（应为 32 到 1024 之间 32 的倍数）"},
    "design.shared": {"en": "{value} bytes of dynamic shared memory (0 .. {most})",
                      "zh": "{value} 字节的动态共享内存（应为 0 .. {most}）"},
    "design.impossible": {"en": "{name}_plan {what} wrote an impossible launch: {problems} (plan[0..3] = grid.x, "
                                "grid.y, block.x, dynamic shared bytes)",
                          "zh": "{name}_plan {what} 写出了不可能的启动配置：{problems}（plan[0..3] = 网格的 grid.x、"
                                "grid.y，线程块的 block.x，动态共享内存的字节数）"},
    "design.loads_nothing": {"en": "it loads nothing from global memory", "zh": "它没有从全局内存读取任何数据"},
    "design.uncoalesced": {"en": "loads not coalesced: {sectors} sectors per request where {ideal} would do "
                                 "(neighbouring lanes must read neighbouring addresses)",
                           "zh": "读取没有合并访存：每个请求 {sectors} 个扇区，而 {ideal} 个就够"
                                 "（相邻通道必须读取相邻的地址）"},
    "design.reread": {"en": "the input read {times} times ({loaded} bytes loaded, {size} in the input{again})",
                      "zh": "输入被读了 {times} 遍（读取了 {loaded} 字节，输入有 {size} 字节{again}）"},
    "design.again": {"en": ", {reread} allowed again", "zh": "，允许再读 {reread} 字节"},
    "design.narrow": {"en": "narrow loads: {width} bytes per thread and load instruction on average (at least "
                            "{wide}: vec_t)",
                      "zh": "读取太窄：平均每个线程每条读取指令 {width} 字节（至少 {wide}：vec_t）"},
    "design.conflicts": {"en": "shared-memory bank conflicts: {per} wavefronts per request where {ideal} would do "
                               "(worst {ways}-way)",
                         "zh": "共享内存存储体冲突：每个请求 {per} 个波前，而 {ideal} 个就够（最严重 {ways} 路）"},
    "design.parallelism": {"en": "too little parallelism on a GPU: the plan for the full-size shape ({plan}) gives "
                                 "{per_sm} threads per SM of an H100's {sms} (at least {least}): too few bytes in "
                                 "flight to cover the memory's latency",
                           "zh": "GPU 上的并行度不够：完整规模形状的计划（{plan}）在 H100 的 {sms} 个 SM 上每个 SM "
                                 "只有 {per_sm} 个线程（至少要 {least} 个）：在途的字节太少，掩盖不了内存的延迟"},
    "design.bandwidth": {"en": "{gbps} GB/s: {share} of {ceiling} ({ceiling_gbps} GB/s), below the {least} a "
                               "design needs",
                         "zh": "{gbps} GB/s：是 {ceiling}（{ceiling_gbps} GB/s）的 {share}，低于设计所需的 {least}"},
    "design.launched": {"en": "{what}, launched with {plan}", "zh": "{what}，启动配置为 {plan}"},
    "design.short": {"en": "{what}: the design falls short:\n  - {wrong}", "zh": "{what}：设计没有达标：\n  - {wrong}"},
    # ---- `python -m grader profile`: the table's rows (what each is, how to read it) ----
    "profile.legend_row": {"en": "  {title}: {meaning}", "zh": "  {title}：{meaning}"},
    "profile.duration": {"en": "duration", "zh": "耗时"},
    "profile.duration.how": {"en": "the kernel's GPU time (caches flushed, boost clock, as `grader bench` times)",
                             "zh": "核函数在 GPU 上的时间（缓存已清空，加速频率，与 `grader bench` 的计时方式相同）"},
    "profile.throughput": {"en": "GB/s or TFLOP/s", "zh": "GB/s 或 TFLOP/s"},
    "profile.throughput.how": {"en": "the benchmark's bytes or FLOPs over the duration: `grader bench`'s figure",
                               "zh": "基准测试的字节数或 FLOP 数除以耗时：即 `grader bench` 给出的数字"},
    "profile.dram": {"en": "DRAM throughput, % of peak", "zh": "DRAM 吞吐量，占峰值的 %"},
    "profile.dram.how": {"en": "near 90%: memory-bound and done; low: latency or compute bound",
                         "zh": "接近 90%：访存受限，已经到头；偏低：受延迟或计算限制"},
    "profile.sm": {"en": "compute (SM) throughput, % of peak", "zh": "计算（SM）吞吐量，占峰值的 %"},
    "profile.sm.how": {"en": "the busiest SM pipe; high while DRAM is low: compute-bound",
                       "zh": "最忙的 SM 流水线；它高而 DRAM 低：计算受限"},
    "profile.sectors": {"en": "global sectors per request", "zh": "每个请求的全局扇区数"},
    "profile.sectors.how": {"en": "32-byte sectors per warp access: 4 for 4-byte lanes, 16 for 16-byte ones; more "
                                  "than the ideal: uncoalesced",
                            "zh": "每次线程束访问的 32 字节扇区数：每个通道 4 字节时为 4，16 字节时为 16；"
                                  "多于理想值：没有合并访存"},
    "profile.bank_conflicts": {"en": "shared-memory bank conflicts", "zh": "共享内存存储体冲突"},
    "profile.bank_conflicts.how": {"en": "extra wavefronts: one bank serves a warp's words one after another; 0 is "
                                         "ideal",
                                   "zh": "多出的波前：一个存储体依次为线程束的各个字服务；0 为理想"},
    "profile.l1": {"en": "L1 hit rate", "zh": "L1 命中率"},
    "profile.l1.how": {"en": "sectors L1 served; a streaming kernel reuses nothing",
                       "zh": "由 L1 提供的扇区；流式核函数不复用任何数据"},
    "profile.l2": {"en": "L2 hit rate", "zh": "L2 命中率"},
    "profile.l2.how": {"en": "sectors L2 served: reuse between blocks (tiles of a GEMM) shows here",
                       "zh": "由 L2 提供的扇区：线程块之间的复用（GEMM 的分块）体现在这里"},
    "profile.occupancy": {"en": "achieved occupancy", "zh": "实际占用率"},
    "profile.occupancy.how": {"en": "active warps of the SM's 64, on average: what hides latency",
                              "zh": "SM 的 64 个线程束中平均活跃的数量：它用来掩盖延迟"},
    "profile.theoretical": {"en": "theoretical occupancy (limiter)", "zh": "理论占用率（限制因素）"},
    "profile.theoretical.how": {"en": "the most the launch allows, and the resource that stops one more block per "
                                      "SM",
                                "zh": "这次启动所允许的最大值，以及让每个 SM 无法再多放一个线程块的资源"},
    "profile.registers": {"en": "registers per thread", "zh": "每个线程的寄存器数"},
    "profile.registers.how": {"en": "65536 per SM: more per thread, fewer warps",
                              "zh": "每个 SM 有 65536 个寄存器：每个线程用得越多，线程束越少"},
    "profile.smem": {"en": "shared memory per block", "zh": "每个线程块的共享内存"},
    "profile.smem.how": {"en": "228 KiB per SM, 1 KiB of it reserved per block",
                         "zh": "每个 SM 228 KiB，其中每个线程块保留 1 KiB"},
    "profile.tensor": {"en": "tensor pipe utilisation", "zh": "张量流水线利用率"},
    "profile.tensor.how": {"en": "cycles the HMMA pipe is busy: the roof of an mma kernel",
                           "zh": "HMMA 流水线忙碌的周期：mma 核函数的上限"},
    "profile.instructions": {"en": "warp instructions executed", "zh": "执行的线程束指令数"},
    "profile.instructions.how": {"en": "the work issued for the result", "zh": "为得到结果而发射的工作量"},
    "profile.active_threads": {"en": "active threads per warp instruction", "zh": "每条线程束指令的活跃线程数"},
    "profile.active_threads.how": {"en": "32 is a full warp; fewer: divergence, or a partial last warp",
                                   "zh": "32 为满线程束；更少：分支发散，或最后一个线程束不满"},
    "profile.mix": {"en": "instruction mix", "zh": "指令构成"},
    "profile.mix.how": {"en": "warp instructions by kind (PTX: most moves and conversions vanish in SASS)",
                        "zh": "按种类划分的线程束指令（PTX：大多数移动和转换指令在 SASS 中会消失）"},
    "profile.stalls": {"en": "top warp stalls (cycles per instruction)", "zh": "主要的线程束停顿（每条指令的周期数）"},
    "profile.stalls.how": {"en": "where warps wait; the reasons are explained below",
                           "zh": "线程束在哪里等待；原因在下面解释"},
    # ---- `python -m grader profile`: around the tables ----
    "profile.na": {"en": "n/a", "zh": "无"},
    "profile.na_emulator": {"en": "n/a on the emulator", "zh": "模拟器上无"},
    "profile.estimates": {"en": "ESTIMATES from the PTX emulator, nothing measured on a GPU",
                          "zh": "PTX 模拟器给出的估计值，没有在 GPU 上测量"},
    "profile.est": {"en": " (est.)", "zh": "（估计）"},
    "profile.metric": {"en": "metric", "zh": "指标"},
    "profile.furthest": {"en": "{kernel}, {column}: the memory instructions furthest from their ideal (estimates)",
                         "zh": "{kernel}，{column}：离理想值最远的访存指令（估计值）"},
    "profile.memory_note": {"en": "global: 32-byte sectors per warp request; shared: wavefronts per request (above "
                                  "the ideal: bank conflicts)",
                            "zh": "global：每个线程束请求的 32 字节扇区数；shared：每个请求的波前数（高于理想值：存储体冲突）"},
    "profile.legend": {"en": "how to read it:", "zh": "怎么读这张表："},
    "profile.running": {"en": "{exercise}: profiling under Nsight Compute ...",
                        "zh": "{exercise}：正在用 Nsight Compute 分析 ..."},
    "profile.running_emulator": {"en": "{exercise}: profiling on the emulator ...",
                                 "zh": "{exercise}：正在模拟器上分析 ..."},
    "profile.report": {"en": "report: {report} (open it in Nsight Compute: ncu-ui {report})",
                       "zh": "报告：{report}（用 Nsight Compute 打开：ncu-ui {report}）"},
    "profile.on_emulator": {"en": "{exercise} on the emulator: its largest case that runs here, {case} (the "
                                  "benchmark's sizes are for a GPU)",
                            "zh": "{exercise} 在模拟器上：这里能运行的最大用例 {case}（基准测试的规模是给 GPU 的）"},
    "profile.no_occupancy": {"en": "{label}: no occupancy estimate ({error})", "zh": "{label}：没有占用率估计（{error}）"},
    "profile.wrong_output": {"en": "{label}: not profiled, its output is wrong ({error})",
                             "zh": "{label}：没有分析，它的输出是错的（{error}）"},
    "profile.not_profiled": {"en": "yours: not profiled ({error})", "zh": "你的：没有分析（{error}）"},
    # ---- `python -m grader profile`: the cells of the table (grader.ncu, grader.profile_estimates) ----
    "cell.not_timed": {"en": "not timed (emulator)", "zh": "不计时（模拟器）"},
    "cell.sectors": {"en": "{per} (ideal {ideal})", "zh": "{per}（理想 {ideal}）"},
    "cell.no_global": {"en": "no global accesses", "zh": "没有全局内存访问"},
    "cell.extra": {"en": "{count} extra wavefronts", "zh": "多出 {count} 个波前"},
    "cell.no_shared": {"en": "no shared accesses", "zh": "没有共享内存访问"},
    "cell.of_32": {"en": "{threads} of 32", "zh": "32 个中的 {threads}"},
    "cell.mma_share": {"en": "mma: {share} of warp instructions", "zh": "mma：占线程束指令的 {share}"},
    "cell.occupancy": {"en": "{frac} ({blocks} blocks of {threads} threads; limiter: {limiter})",
                       "zh": "{frac}（{blocks} 个线程块，每块 {threads} 个线程；限制因素：{limiter}）"},
    "cell.loads": {"en": "{per} (loads)", "zh": "{per}（读取）"},
    "cell.no_loads": {"en": "no global loads (LDG)", "zh": "没有全局内存读取（LDG）"},
    "cell.limiter": {"en": "{pct} (limiter: {limiter})", "zh": "{pct}（限制因素：{limiter}）"},
    # ---- why warps stall (grader.ncu) ----
    "stall.long_scoreboard": {"en": "waiting for a global/local memory load (L1TEX): more bytes in flight, or fewer "
                                    "loads",
                              "zh": "在等全局/本地内存的读取（L1TEX）：需要更多在途字节，或更少的读取"},
    "stall.short_scoreboard": {"en": "waiting for shared memory or a special-function result (MIO): bank "
                                     "conflicts, MUFU",
                               "zh": "在等共享内存或特殊函数的结果（MIO）：存储体冲突、MUFU"},
    "stall.barrier": {"en": "waiting at __syncthreads for the other warps of the block: uneven work between "
                            "barriers",
                      "zh": "在 __syncthreads 处等待线程块的其他线程束：屏障之间的工作不均"},
    "stall.wait": {"en": "a fixed-latency dependency (the previous arithmetic result); normal in tight math",
                   "zh": "固定延迟的依赖（上一条算术指令的结果）；在密集计算中是正常的"},
    "stall.mio_throttle": {"en": "the shared-memory / special-function queue is full: too many LDS/STS/SHFL in a "
                                 "row",
                           "zh": "共享内存 / 特殊函数队列已满：连续的 LDS/STS/SHFL 太多"},
    "stall.lg_throttle": {"en": "the global/local memory queue is full: many narrow loads, use wider (16-byte) "
                                "accesses",
                          "zh": "全局/本地内存队列已满：窄读取太多，改用更宽的（16 字节）访问"},
    "stall.math_pipe_throttle": {"en": "the math pipe (FMA, tensor core) is busy: good when compute-bound",
                                 "zh": "数学流水线（FMA、张量核心）忙：计算受限时是好事"},
    "stall.tex_throttle": {"en": "the texture/L1TEX pipe is saturated", "zh": "纹理/L1TEX 流水线已饱和"},
    "stall.membar": {"en": "waiting at a memory fence (__threadfence)", "zh": "在内存栅栏处等待（__threadfence）"},
    "stall.drain": {"en": "waiting for the last stores to leave at exit", "zh": "退出时等待最后的写入完成"},
    "stall.branch_resolving": {"en": "waiting for a branch target to be computed", "zh": "在等分支目标算出来"},
    "stall.dispatch_stall": {"en": "the dispatcher could not issue (pipeline conflict)",
                             "zh": "调度器无法发射（流水线冲突）"},
    "stall.no_instruction": {"en": "the instruction cache missed: a large unrolled kernel",
                             "zh": "指令缓存未命中：核函数展开得太大"},
    "stall.imc_miss": {"en": "the immediate-constant cache missed", "zh": "立即数常量缓存未命中"},
    "stall.sleeping": {"en": "the warp is sleeping (__nanosleep)", "zh": "线程束在休眠（__nanosleep）"},
    "stall.misc": {"en": "other reasons", "zh": "其他原因"},
    "stall.not_selected": {"en": "eligible, but another warp issued: enough warps to hide latency",
                           "zh": "可以发射，但另一个线程束发射了：线程束足够多，能掩盖延迟"},
    "stall.selected": {"en": "issuing an instruction (not a stall)", "zh": "正在发射指令（不是停顿）"},
    # ---- `python -m grader debug`: an attention kernel followed tile by tile (grader.debug) ----
    "debug.steps": {"en": "{first} .. {last}: {count} steps", "zh": "{first} .. {last}：共 {count} 步"},
    "debug.agree": {"en": "kernel and float64 reference agree after every step ({steps}); largest row error {worst} "
                          "(tolerance {tol})",
                    "zh": "每一步之后核函数都与 float64 参考结果一致（{steps}）；最大行误差 {worst}（容差 {tol}）"},
    "debug.nothing": {"en": "nothing was compared", "zh": "没有比较任何东西"},
    "debug.agree_before": {"en": "agree before it: {steps} (largest row error {worst})",
                           "zh": "在此之前一致：{steps}（最大行误差 {worst}）"},
    "debug.nan": {"en": " (never written: the poison; or computed, as 0 / 0 or inf - inf)",
                  "zh": "（从未写入：毒值；或是算出来的，如 0 / 0 或 inf - inf）"},
    "debug.first": {"en": "FIRST DIVERGENCE after {step}: {where}: expected {expected}, got {got} ({rows})",
                    "zh": "第一次出现分歧在 {step} 之后：{where}：期望 {expected}，得到 {got}（{rows}）"},
    "debug.reference": {"en": "reference, this row (scores in base 2: s * sm_scale * log2 e):",
                        "zh": "参考结果，这一行（以 2 为底的分数：s * sm_scale * log2 e）："},
    "debug.before": {"en": "  before the tile: m = {m}, {l} = {sum}", "zh": "  这个分块之前：m = {m}，{l} = {sum}"},
    "debug.scores": {"en": "  the tile's scores S: max {max}, min {min} over {keys} keys",
                     "zh": "  这个分块的分数 S：{keys} 个键上最大 {max}，最小 {min}"},
    "debug.rises": {"en": "  the row max rises {m0} -> {m1}: {l} and EVERY O column are rescaled by 2^(m_old - m_new) = "
                          "{factor} before this tile's p = 2^(S - m_new) is added",
                    "zh": "  行最大值上升 {m0} -> {m1}：在加上这个分块的 p = 2^(S - m_new) 之前，{l} 和 O 的每一列都要"
                          "乘以 2^(m_old - m_new) = {factor}"},
    "debug.same_max": {"en": "  the row max does not change: the old O and {l} keep their scale (rescale by 1)",
                       "zh": "  行最大值没有变：原来的 O 和 {l} 保持原有比例（乘以 1）"},
    "debug.after": {"en": "  after the tile: m = {m}, {l} = {sum}, O[{col}] = {o} (unnormalised), O[{col}] / {l} = "
                          "{out}",
                    "zh": "  这个分块之后：m = {m}，{l} = {sum}，O[{col}] = {o}（未归一化），O[{col}] / {l} = {out}"},
    "debug.title12": {"en": "day12/{name}: {source}, {heads} heads, q_len {q_len}, kv_len {kv_len}, head_dim "
                            "{head_dim}, {mask}, tiles of {tile} keys, seed {seed}",
                      "zh": "day12/{name}：{source}，{heads} 个头，q_len {q_len}，kv_len {kv_len}，head_dim "
                            "{head_dim}，{mask}，每个分块 {tile} 个键，种子 {seed}"},
    "debug.causal": {"en": "causal", "zh": "因果掩码"},
    "debug.no_mask": {"en": "no mask", "zh": "无掩码"},
    "debug.kv_tile": {"en": "KV tile {index} (keys {begin}..{end})", "zh": "KV 分块 {index}（键 {begin}..{end}）"},
    "debug.tile": {"en": "tile {index}", "zh": "分块 {index}"},
    "debug.query": {"en": "head {h}, query {i}, output column {col}", "zh": "头 {h}，查询 {i}，输出列 {col}"},
    "debug.rows12": {"en": "{count} of {rows} rows diverge; this row's relative error {err} > {tol}",
                     "zh": "{rows} 行中有 {count} 行出现分歧；这一行的相对误差 {err} > {tol}"},
    "debug.checked": {"en": "; causal: the first {rows} queries, whose keys end by then, are checked",
                      "zh": "；因果掩码：只检查前 {rows} 个查询（它们的键到此为止）"},
    "debug.group_rises": {"en": "the max of token group {groups} rises in this tile: its d and o must be rescaled by "
                                "2^(m_old - m_new)",
                          "zh": "词元组 {groups} 的最大值在这个分块中上升：它的 d 和 o 必须乘以 2^(m_old - m_new)"},
    "debug.no_group_rises": {"en": "no token group's max rises in this tile",
                             "zh": "没有哪个词元组的最大值在这个分块中上升"},
    "debug.groups": {"en": "the kernel splits the tokens among {groups} token groups (token j to group j mod {groups}), "
                           "each with its own (m, d, o) until they merge: {where}",
                     "zh": "核函数把词元分给 {groups} 个词元组（词元 j 归组 j mod {groups}），每组有自己的 (m, d, o)，"
                           "直到合并：{where}"},
    "debug.title11": {"en": "day11/{name}: {source}, batch {batch}, kv_len {kv_len}, heads {heads}/{kv_heads}{shape}, "
                            "tiles of {tile} tokens, seed {seed}",
                      "zh": "day11/{name}：{source}，批大小 {batch}，kv_len {kv_len}，头 {heads}/{kv_heads}{shape}，"
                            "每个分块 {tile} 个词元，种子 {seed}"},
    "debug.paged": {"en": ", page size {size}, ragged lengths {lengths}", "zh": "，页大小 {size}，不等长 {lengths}"},
    "debug.kv_tokens": {"en": "KV tile {index} (tokens {begin}..{end})", "zh": "KV 分块 {index}（词元 {begin}..{end}）"},
    "debug.chunk_step": {"en": "split-KV chunk {index} (tokens {begin}..{end}, its partial result)",
                         "zh": "split-KV 块 {index}（词元 {begin}..{end}，它的部分结果）"},
    "debug.chunk": {"en": "chunk {index}", "zh": "块 {index}"},
    "debug.merge_step": {"en": "the merge of the {chunks} chunks (merge_chunks; every chunk's partial result agreed)",
                         "zh": "{chunks} 个块的合并（merge_chunks；每个块的部分结果都一致）"},
    "debug.merge": {"en": "merge", "zh": "合并"},
    "debug.chunks": {"en": "the chunks of this row: lse2 = {lse2}, o[{col}] = {o}", "zh": "这一行的各块：lse2 = {lse2}，o[{col}] = {o}"},
    "debug.merged": {"en": "merged: o = sum_c w_c o_c / sum_c w_c with w_c = 2^(lse2_c - max) = {weights}; lse2 = "
                           "max + log2(sum_c w_c)",
                     "zh": "合并：o = sum_c w_c o_c / sum_c w_c，其中 w_c = 2^(lse2_c - max) = {weights}；lse2 = "
                           "max + log2(sum_c w_c)"},
    "debug.request": {"en": "request {b}, head {h}, output dim {col}", "zh": "请求 {b}，头 {h}，输出维 {col}"},
    "debug.rows11": {"en": "{count} of {size} (request, head) rows diverge; this one's relative error {err} > {tol}",
                     "zh": "{size} 个（请求，头）行中有 {count} 行出现分歧；这一行的相对误差 {err} > {tol}"},
    "debug.lse_where": {"en": "request {b}, head {h}, lse2 (= m + log2 d)", "zh": "请求 {b}，头 {h}，lse2（= m + log2 d）"},
    "debug.lse_wrong": {"en": "{count} of {size} lse2 values wrong; o agrees",
                        "zh": "{size} 个 lse2 值中有 {count} 个错误；o 一致"},
    "debug.replaying": {"en": "replaying the last failing case of {exercise} ({when}): {sizes}, seed {seed}{left}; "
                              "--fresh (or any size or --seed) for other inputs",
                        "zh": "重放 {exercise} 上次失败的用例（{when}）：{sizes}，种子 {seed}{left}；"
                              "用 --fresh（或指定任一规模或 --seed）换别的输入"},
    "debug.not_replayed": {"en": " (debug runs fp16, head_dim 128, NHD: not replayed {left})",
                           "zh": "（debug 只运行 fp16、head_dim 128、NHD：没有重放 {left}）"},
    "debug.not_attention": {"en": "debug follows attention kernels tile by tile: day11 or day12, not {day}",
                            "zh": "debug 逐个分块跟踪注意力核函数：只支持 day11 或 day12，不支持 {day}"},
    "debug.takes": {"en": "{exercise}: debug takes {names} (the kernels that walk KV tiles); `python -m grader check "
                          "{day}` names the worst element of the others",
                    "zh": "{exercise}：debug 只接受 {names}（逐个遍历 KV 分块的核函数）；其他练习用 `python -m grader "
                          "check {day}` 找出最差的元素"},
    "debug.no_tile": {"en": "{file}: cannot find the keys per tile ({pattern}); pass --tile N",
                      "zh": "{file}：找不到每个分块的键数（{pattern}）；请用 --tile N 给出"},
    "debug.gqa": {"en": "--heads {heads} must be a multiple of --kv-heads {kv_heads} (GQA)",
                  "zh": "--heads {heads} 必须是 --kv-heads {kv_heads} 的倍数（GQA）"},
    "debug.no_gqa": {"en": "decode_warp has no GQA: --kv-heads must equal --heads",
                     "zh": "decode_warp 没有 GQA：--kv-heads 必须等于 --heads"},
    "debug.choose": {"en": "--solutions and --source: choose one", "zh": "--solutions 和 --source：只能选一个"},
    "debug.at_least_one": {"en": "--{option} {value}: expected >= 1", "zh": "--{option} {value}：应 >= 1"},
    "debug.no_source": {"en": "no kernel source {source}", "zh": "没有核函数源文件 {source}"},
    "debug.not_for_day": {"en": "--{option} does not apply to {day} (its sizes: {sizes})",
                          "zh": "--{option} 不适用于 {day}（它的规模参数：{sizes}）"},
    # ---- `python -m grader profile`: what stops a profile, and day 14's timeline ----
    "profile.no_exercises": {"en": "{day} has no exercises yet (see course_index.md)",
                             "zh": "{day} 还没有练习（见 course_index.md）"},
    "profile.no_benchmark": {"en": "{exercise} has no benchmark: there is no benchmark case to profile",
                             "zh": "{exercise} 没有基准测试：没有可以分析的基准测试用例"},
    "profile.none_benchmarked": {"en": "no exercise of {day} has a benchmark to profile{timeline}",
                                 "zh": "{day} 没有哪个练习有可以分析的基准测试{timeline}"},
    "profile.capstone": {"en": " (--timeline profiles the capstone)", "zh": "（--timeline 分析综合项目）"},
    "profile.metrics": {"en": "--metrics {metrics}: expected one of {sets}", "zh": "--metrics {metrics}：应为 {sets} 之一"},
    "profile.needs_gpu": {"en": "profiling runs kernels: {why}", "zh": "性能分析要运行核函数：{why}"},
    "profile.no_ncu": {"en": "Nsight Compute (ncu) is not installed here: put its folder on PATH or set {env}=/path/to/ncu "
                             "(COURSE_BACKEND=emulator shows the emulator's estimates)",
                       "zh": "这里没有安装 Nsight Compute (ncu)：把它的目录加入 PATH，或设置 {env}=/path/to/ncu"
                             "（COURSE_BACKEND=emulator 显示模拟器的估计值）"},
    "profile.timeline_gpu": {"en": "the timeline runs kernels: {why}", "zh": "时间线要运行核函数：{why}"},
    "profile.timeline": {"en": "day14: the decode step stage by stage{under} ...", "zh": "day14：逐级查看解码步骤{under} ..."},
    "profile.under": {"en": " under {tool}", "zh": "（使用 {tool}）"},
    "profile.timeline_file": {"en": "timeline: {report}.nsys-rep (open it in Nsight Systems: nsys-ui {report}.nsys-rep); "
                                    "each stage is an NVTX range{nvtx}",
                              "zh": "时间线：{report}.nsys-rep（用 Nsight Systems 打开：nsys-ui {report}.nsys-rep）；"
                                    "每一级是一个 NVTX 区间{nvtx}"},
    "profile.nvtx": {"en": " once the nvtx package is installed", "zh": "（安装 nvtx 包之后）"},
    "profile.no_nsys": {"en": "Nsight Systems (nsys) is not installed here: the table above is from CUDA events; with "
                              "nsys on PATH (or {env}) the same run is recorded as a timeline",
                        "zh": "这里没有安装 Nsight Systems (nsys)：上面的表格来自 CUDA 事件；把 nsys 加入 PATH"
                              "（或设置 {env}）后，同样的运行会被记录成时间线"},
    "profile.stage": {"en": "stage", "zh": "级"},
    "profile.kernel_from": {"en": "kernel from", "zh": "核函数来自"},
    "profile.kernels": {"en": "kernels", "zh": "核函数"},
    "profile.warp_instructions": {"en": "warp instructions", "zh": "线程束指令"},
    "profile.share": {"en": "share", "zh": "占比"},
    "profile.active": {"en": "active threads", "zh": "活跃线程"},
    "profile.global_bytes": {"en": "global bytes", "zh": "全局字节数"},
    "profile.sectors_ideal": {"en": "sectors/request (ideal)", "zh": "扇区/请求（理想）"},
    "profile.extra_wavefronts": {"en": "extra shared wavefronts", "zh": "多出的共享波前"},
    "profile.none_here": {"en": "(none on the emulator)", "zh": "（模拟器上没有）"},
    "profile.stages_note": {"en": "the decode step on the emulator ({config}): per-stage counts, ESTIMATES (nothing is "
                                  "timed)",
                            "zh": "模拟器上的解码步骤（{config}）：逐级计数，是估计值（不计时）"},
    "profile.launch": {"en": "{kernel} (launch {n})", "zh": "{kernel}（第 {n} 次启动）"},
    "profile.still_running": {"en": "still running after {seconds} s: stopped", "zh": "运行 {seconds} 秒后仍未结束：已停止"},
    "profile.stopped": {"en": "the profiling run stopped before reporting: {tail}",
                        "zh": "性能分析进程在报告结果之前就停止了：{tail}"},
    "profile.import_failed": {"en": "ncu --import {report} failed: {error}", "zh": "ncu --import {report} 失败：{error}"},
    "profile.import_unreadable": {"en": "{error} from ncu --import {report}", "zh": "ncu --import {report} 的输出：{error}"},
    "profile.timeline_only": {"en": "--timeline is for the capstone: python -m grader profile day14 --timeline",
                              "zh": "--timeline 只用于综合项目：python -m grader profile day14 --timeline"},
    # ---- Nsight Compute's own problems, as `grader profile` reports them (grader.ncu) ----
    "ncu.counters_denied": {"en": "the GPU does not let this user read its performance counters (ERR_NVGPUCTRPERM): "
                                  "run as root, or have an administrator allow it "
                                  "(NVreg_RestrictProfilingToAdminUsers=0)",
                            "zh": "这块 GPU 不允许当前用户读取它的性能计数器（ERR_NVGPUCTRPERM）：以 root 运行，或请"
                                  "管理员开放权限（NVreg_RestrictProfilingToAdminUsers=0）"},
    "ncu.error": {"en": "ncu: {error}", "zh": "ncu 报错：{error}"},
    "ncu.no_kernels": {"en": "ncu profiled no kernel (\"No kernels were profiled\"): the benchmark launched nothing "
                             "between cudaProfilerStart and Stop",
                       "zh": "ncu 没有分析到任何核函数（\"No kernels were profiled\"）：基准测试在 cudaProfilerStart "
                             "和 Stop 之间没有启动任何核函数"},
    "ncu.not_csv": {"en": "not an Nsight Compute CSV: no header with \"ID\" and \"Kernel Name\"",
                    "zh": "不是 Nsight Compute 的 CSV：没有含 \"ID\" 和 \"Kernel Name\"（核函数名）的表头"},
    # ---- the profile's cells: what limits the occupancy, the instruction mix's families ----
    "limiter.registers": {"en": "registers", "zh": "寄存器"},
    "limiter.shared memory": {"en": "shared memory", "zh": "共享内存"},
    "limiter.block size (warps per SM)": {"en": "block size (warps per SM)", "zh": "线程块大小（每个 SM 的线程束数）"},
    "limiter.blocks per SM": {"en": "blocks per SM", "zh": "每个 SM 的线程块数"},
    "limiter.and": {"en": " and ", "zh": "和"},
    "limiter.blocks": {"en": "{limiter} ({blocks} blocks per SM)", "zh": "{limiter}（每个 SM {blocks} 个线程块）"},
    "mix.tensor core (mma)": {"en": "tensor core (mma)", "zh": "张量核心（mma）"},
    "mix.global memory": {"en": "global memory", "zh": "全局内存"},
    "mix.shared memory": {"en": "shared memory", "zh": "共享内存"},
    "mix.other memory (param, local, generic)": {"en": "other memory (param, local, generic)",
                                                 "zh": "其他内存（param、本地内存 local、generic）"},
    "mix.barriers and waits": {"en": "barriers and waits", "zh": "屏障与等待"},
    "mix.warp shuffles and votes": {"en": "warp shuffles and votes", "zh": "线程束洗牌与投票"},
    "mix.special functions (MUFU)": {"en": "special functions (MUFU)", "zh": "特殊函数（MUFU）"},
    "mix.conversions and moves": {"en": "conversions and moves", "zh": "类型转换与数据移动"},
    "mix.floating point": {"en": "floating point", "zh": "浮点运算"},
    "mix.integer and logic": {"en": "integer and logic", "zh": "整数与逻辑运算"},
    "mix.other": {"en": "other", "zh": "其他"},
    "mix.control flow (branches, exits)": {"en": "control flow (branches, exits)", "zh": "控制流（分支、退出）"},
    # ---- the plots (grader.plots) ----
    # ---- python -m grader leaderboard (grader.leaderboard) ----
    "leaderboard.run.first": {"en": "the first run", "zh": "第一次运行"},
    "leaderboard.run.warmup": {"en": "warm-up run {k} of {n} (fresh inputs: a kernel must not reuse an earlier "
                                     "launch's result)",
                               "zh": "第 {k} 次预热运行（共 {n} 次；新的输入：核函数不得复用之前某次启动的结果）"},
    "leaderboard.run.repeat": {"en": "a repeat of the last inputs (a kernel must not skip inputs it has seen)",
                               "zh": "重复上一次的输入（核函数不得跳过它见过的输入）"},
    "leaderboard.run.timed": {"en": "timed run {k} of {n} (fresh inputs, output checked after timing)",
                              "zh": "第 {k} 次计时运行（共 {n} 次；新的输入，计时之后检查输出）"},
    "leaderboard.wrong": {"en": "wrong output in {run}: {error}", "zh": "{run}的输出错误：{error}"},
    "leaderboard.launch_failed": {"en": "launching {what} failed: {error}", "zh": "启动 {what} 失败：{error}"},
    "leaderboard.checks_passed": {"en": "fresh inputs and output checks passed",
                                  "zh": "新的输入和输出检查都通过了"},
    "leaderboard.below_bound": {"en": "a run took {fastest} ms, below the physical bound {bound} ms ({written} bytes "
                                      "written at {gbps} GB/s, {flops} flops at {tflops} TFLOP/s)",
                                "zh": "有一次运行只用了 {fastest} ms，低于物理下限 {bound} ms（以 {gbps} GB/s 写入 "
                                      "{written} 字节，以 {tflops} TFLOP/s 完成 {flops} 次浮点运算）"},
    "leaderboard.outliers": {"en": "{count} outliers, slowest {slowest}x the median",
                             "zh": "{count} 次离群运行，最慢的是中位数的 {slowest} 倍"},
    "leaderboard.not_full": {"en": "the gradebook gives it less than full points", "zh": "成绩册中它没有拿到满分"},
    "leaderboard.no_submission": {"en": "no {day} submission from {students} in {folder}",
                                  "zh": "{folder} 中没有 {students} 提交的 {day}"},
    "leaderboard.nothing": {"en": "nothing submitted for {day} in {folder}", "zh": "{folder} 中没有 {day} 的提交"},
    "leaderboard.no_exercises": {"en": "{day} has no exercises", "zh": "{day} 没有练习"},
    "leaderboard.title": {"en": "leaderboard (median of the timed runs; % of ceiling)",
                          "zh": "排行榜（计时运行的中位数；占上限的 %）"},
    "leaderboard.head.exercise": {"en": "exercise", "zh": "练习"},
    "leaderboard.head.student": {"en": "student", "zh": "学生"},
    "leaderboard.head.status": {"en": "status", "zh": "状态"},
    "leaderboard.head.median": {"en": "median ms", "zh": "中位数 ms"},
    "leaderboard.head.share": {"en": "% of ceiling", "zh": "占上限的 %"},
    "leaderboard.head.notes": {"en": "notes", "zh": "说明"},
    "leaderboard.status.timed": {"en": "timed", "zh": "已计时"},
    "leaderboard.status.rejected": {"en": "rejected", "zh": "被拒绝"},
    "leaderboard.status.emulator": {"en": "not timed (emulator)", "zh": "未计时（模拟器）"},
    "leaderboard.status.not_passing": {"en": "not passing", "zh": "未通过"},
    "leaderboard.solution": {"en": "(course solution)", "zh": "（课程参考解答）"},
    "leaderboard.xlabel": {"en": "% of ceiling (copy bandwidth or cuBLAS, measured in the same process)",
                           "zh": "占上限的 %（拷贝带宽或 cuBLAS，在同一进程中测得）"},
    "leaderboard.csv": {"en": "CSV: {path}", "zh": "CSV 文件：{path}"},
    "leaderboard.plot": {"en": "plot: {path}", "zh": "图：{path}"},
    "leaderboard.no_plot": {"en": "plot: none (nothing timed: timings need a CUDA GPU)",
                            "zh": "图：无（没有计时：计时需要 CUDA GPU）"},
    # ---- day 16's benchmark notes (grader.exercises.day16) ----
    "day16.not_timed": {"en": "{name}: not timed, its output is wrong ({error})",
                        "zh": "{name}：没有计时，它的输出是错的（{error}）"},
    "day16.sdpa": {"en": "seq {seq}: {rates} TFLOP/s; the ceiling is {best}",
                   "zh": "seq {seq}：{rates} TFLOP/s；上限取 {best}"},
    # ---- python -m grader unlock (grader.unlock) ----
    "unlock.nothing": {"en": "{day} has no course headers that later days build on: nothing to unlock",
                       "zh": "{day} 没有供后面几天使用的课程头文件：无需解锁"},
    "unlock.recorded": {"en": "{day} unlocked (recorded): this full course already compiles later days with its "
                              "headers ({folder})",
                        "zh": "{day} 已解锁（已记录）：这份完整课程已经用它的头文件（{folder}）编译后面几天的代码"},
    "unlock.need_from": {"en": "this student edition has no course headers of {day}: pass the folder your instructor "
                               "handed out, python -m grader unlock {day} --from DIR",
                         "zh": "这份学生版没有 {day} 的课程头文件：请传入老师发给你的文件夹，"
                               "python -m grader unlock {day} --from DIR"},
    "unlock.no_headers": {"en": "{given} holds no headers of {day} (expected {given}/*.cuh)",
                          "zh": "{given} 中没有 {day} 的头文件（应为 {given}/*.cuh）"},
    "unlock.overwrite": {"en": "{target} has other versions of {names}: overwrite? [y/N] ",
                         "zh": "{target} 中已有不同版本的 {names}：覆盖吗？[y/N] "},
    "unlock.kept": {"en": "{day}: nothing changed ({target} kept as it is)", "zh": "{day}：没有改动（{target} 保持原样）"},
    "unlock.done": {"en": "{day} unlocked: {count} headers in {target}", "zh": "{day} 已解锁：{target} 中有 {count} 个头文件"},
    # ---- a lesson's helpers (grader.notebook) ----
    "nb.graded_outside": {"en": "{exercise}: graded by the course outside this notebook; the result replaces this "
                                "cell's output",
                          "zh": "{exercise}：由课程在本笔记本之外评分；评分结果会替换这个单元格的输出"},
    "nb.bench_skipped": {"en": "benchmark skipped while autograding", "zh": "自动评分时跳过基准测试"},
    "nb.profile_skipped": {"en": "profile skipped while autograding", "zh": "自动评分时跳过性能分析"},
    "nb.not_submitted": {"en": "{source} is missing from the submission ({folder})",
                         "zh": "提交的作业中缺少 {source}（{folder}）"},
    "nb.size": {"en": "size: {what} must be a positive integer, got {value}",
                "zh": "size：{what} 必须是正整数，得到的是 {value}"},
    "plots.legend": {"en": "{label} ({ratio})", "zh": "{label}：上限的 {ratio}"},
    "plots.no_cjk_font": {"en": "Chinese plot labels need the zh extra (pip install -e '.[zh]'): labels stay in English",
                          "zh": "图中的中文标签需要 zh extra（附加依赖：pip install -e '.[zh]'）：标签保持英文"},
    "plots.no_launch": {"en": "{exercise}: no launch to draw", "zh": "{exercise}：没有可以画的核函数启动"},
    # ---- the plots' titles, axes and legends (grader.plots and the exercises' reports): each phrase whole ----
    "plot.achieved": {"en": "achieved", "zh": "实测"},
    "plot.bytes moved (read + written)": {"en": "bytes moved (read + written)", "zh": "搬运的字节数（读 + 写）"},
    "plot.read stride (floats)": {"en": "read stride (floats)", "zh": "读取步长（float 个数）"},
    "plot.pipeline stages": {"en": "pipeline stages", "zh": "流水线级数"},
    "plot.n (int32 elements)": {"en": "n (int32 elements)", "zh": "n（int32 元素个数）"},
    "plot.threads in the grid": {"en": "threads in the grid", "zh": "网格中的线程数"},
    "plot.KV bytes read": {"en": "KV bytes read", "zh": "读取的 KV 字节数"},
    "plot.sequence length": {"en": "sequence length", "zh": "序列长度"},
    "plot.(ceiling)": {"en": "(ceiling)", "zh": "(上限)"},
    "plot.copy": {"en": "copy", "zh": "拷贝"},
    "plot.yours": {"en": "yours", "zh": "你的"},
    "plot.solution": {"en": "solution", "zh": "参考解答"},
    "plot.one chunk": {"en": "one chunk", "zh": "不拆分"},
    "plot.naive": {"en": "naive", "zh": "朴素"},
    "plot.scalar": {"en": "scalar", "zh": "标量"},
    "plot.no pipeline": {"en": "no pipeline", "zh": "无流水线"},
    "plot.pipeline (file's config)": {"en": "pipeline (file's config)", "zh": "流水线（文件自身的配置）"},
    "plot.warps": {"en": "warps", "zh": "个线程束"},
    "plot.stages": {"en": "stages", "zh": "级"},
    "plot.torch SDPA anchor (H100, platform-notes)": {"en": "torch SDPA anchor (H100, platform-notes)",
                                                      "zh": "torch SDPA 参照值（H100，platform-notes）"},
    "plot.tiled": {"en": "tiled", "zh": "分块"},
    "plot.padded": {"en": "padded", "zh": "填充"},
    "plot.swizzled": {"en": "swizzled", "zh": "交错排布"},
    "plot.pipelined": {"en": "pipelined", "zh": "流水线化"},
    "plot.tuned": {"en": "tuned", "zh": "调优后"},
    "plot.previous rung": {"en": "previous rung", "zh": "上一级"},
    "plot.serial": {"en": "serial", "zh": "串行"},
    "plot.previous rung, serial (yours)": {"en": "previous rung, serial (yours)", "zh": "上一级、串行（你的）"},
    "plot.previous rung, serial (solution)": {"en": "previous rung, serial (solution)", "zh": "上一级、串行（参考解答）"},
    "plot.previous rung, overlap in a warpgroup (yours)": {"en": "previous rung, overlap in a warpgroup (yours)",
                                                           "zh": "上一级、warpgroup 内重叠（你的）"},
    "plot.previous rung, overlap in a warpgroup (solution)": {"en": "previous rung, overlap in a warpgroup (solution)",
                                                              "zh": "上一级、warpgroup 内重叠（参考解答）"},
    "plot.overlap in a warpgroup": {"en": "overlap in a warpgroup", "zh": "warpgroup 内重叠"},
    "plot.ping-pong": {"en": "ping-pong", "zh": "乒乓"},
    "plot.FP8 e4m3 in": {"en": "FP8 e4m3 in", "zh": "FP8 e4m3 输入"},
    "plot.bf16 out": {"en": "bf16 out", "zh": "bf16 输出"},
    "plot.one block per 128 x 128 tile": {"en": "one block per 128 x 128 tile", "zh": "每个 128 x 128 分块一个线程块"},
    "plot.Persistent Hopper GEMM": {"en": "Persistent Hopper GEMM", "zh": "持久化 Hopper GEMM"},
    "plot.grouped tiles": {"en": "grouped tiles", "zh": "分块按组排序"},
    "plot.TMA-store epilogue": {"en": "TMA-store epilogue", "zh": "用 TMA 存储的收尾阶段"},
    # a series: whose kernel and which version ("yours tiled", day 11's "solution, split-KV"), read as one phrase
    "plot.yours float32": {"en": "yours float32", "zh": "你的（float32）"},
    "plot.yours float16": {"en": "yours float16", "zh": "你的（float16）"},
    "plot.yours bfloat16": {"en": "yours bfloat16", "zh": "你的（bfloat16）"},
    "plot.solution float32": {"en": "solution float32", "zh": "参考解答（float32）"},
    "plot.solution float16": {"en": "solution float16", "zh": "参考解答（float16）"},
    "plot.solution bfloat16": {"en": "solution bfloat16", "zh": "参考解答（bfloat16）"},
    "plot.yours e4m3": {"en": "yours e4m3", "zh": "你的（e4m3）"},
    "plot.solution e4m3": {"en": "solution e4m3", "zh": "参考解答（e4m3）"},
    "plot.yours naive": {"en": "yours naive", "zh": "你的（朴素）"},
    "plot.yours tiled": {"en": "yours tiled", "zh": "你的（分块）"},
    "plot.yours padded": {"en": "yours padded", "zh": "你的（填充）"},
    "plot.yours swizzled": {"en": "yours swizzled", "zh": "你的（交错排布）"},
    "plot.yours, one chunk": {"en": "yours, one chunk", "zh": "你的（不拆分）"},
    "plot.yours, split-KV": {"en": "yours, split-KV", "zh": "你的（split-KV）"},
    "plot.yours (failed)": {"en": "yours (failed)", "zh": "你的（未通过）"},
    "plot.yours, GQA": {"en": "yours, GQA", "zh": "你的：GQA"},
    "plot.yours, MHA": {"en": "yours, MHA", "zh": "你的：MHA"},
    "plot.solution, GQA": {"en": "solution, GQA", "zh": "参考解答：GQA"},
    "plot.solution, MHA": {"en": "solution, MHA", "zh": "参考解答：MHA"},
    "plot.solution naive": {"en": "solution naive", "zh": "参考解答（朴素）"},
    "plot.solution tiled": {"en": "solution tiled", "zh": "参考解答（分块）"},
    "plot.solution padded": {"en": "solution padded", "zh": "参考解答（填充）"},
    "plot.solution swizzled": {"en": "solution swizzled", "zh": "参考解答（交错排布）"},
    "plot.solution, one chunk": {"en": "solution, one chunk", "zh": "参考解答（不拆分）"},
    "plot.solution, split-KV": {"en": "solution, split-KV", "zh": "参考解答（split-KV）"},
    "plot.solution (failed)": {"en": "solution (failed)", "zh": "参考解答（未通过）"},
    "plot.transpose": {"en": "transpose", "zh": "转置"},
    "plot.exp throughput": {"en": "exp throughput", "zh": "exp 吞吐量"},
    "plot.4 chains of 256 exps per thread": {"en": "4 chains of 256 exps per thread", "zh": "每个线程 4 条链，每条 256 次 exp"},
    "plot.math library": {"en": "math library", "zh": "数学库"},
    "plot.intrinsic": {"en": "intrinsic", "zh": "内建函数"},
    "plot.exclusive scan of int32 against": {"en": "exclusive scan of int32 against", "zh": "int32 排他扫描，对比"},
    "plot.decode attention": {"en": "decode attention", "zh": "解码注意力"},
    "plot.paged decode": {"en": "paged decode", "zh": "分页解码"},
    "plot.Mi floats": {"en": "Mi floats", "zh": "Mi 个 float"},
    "plot.blocks of": {"en": "blocks of", "zh": "个线程块 x"},
    "plot.rows of": {"en": "rows of", "zh": "每行"},
    "plot.heads": {"en": "heads", "zh": "头"},
    "plot.hidden": {"en": "hidden", "zh": "隐藏维度"},
    "plot.non-causal": {"en": "non-causal", "zh": "非因果"},
    "plot.causal": {"en": "causal", "zh": "因果"},
    "plot.batch": {"en": "batch", "zh": "批大小"},
    "plot.page": {"en": "page", "zh": "页大小"},
    "plot.square": {"en": "square", "zh": "方阵"},
    "plot.fp32 accumulate": {"en": "fp32 accumulate", "zh": "fp32 累加"},
    "plot.H100 anchor, not measured": {"en": "H100 anchor, not measured", "zh": "H100 参照值，非实测"},
    "plot.memory statistics on the PTX emulator, not timed": {"en": "memory statistics on the PTX emulator, not timed",
                                                              "zh": "PTX 模拟器上的访存统计，未计时"},
    "plot.global memory: 32-byte sectors per request": {"en": "global memory: 32-byte sectors per request",
                                                        "zh": "全局内存：每次请求的 32 字节扇区 (sector) 数"},
    "plot.global memory: bytes moved per useful byte": {"en": "global memory: bytes moved per useful byte",
                                                        "zh": "全局内存：每个有用字节实际搬运的字节数"},
    "plot.shared memory: wavefronts per request (bank conflicts)": {"en": "shared memory: wavefronts per request (bank conflicts)",
                                                                    "zh": "共享内存：每次请求的波前 (wavefront) 数（存储体冲突）"},
    "plot.instruction mix": {"en": "instruction mix", "zh": "指令构成"},
    "plot.warp instructions": {"en": "warp instructions", "zh": "线程束 (warp) 指令数"},
    "plot.no shared-memory instruction": {"en": "no shared-memory instruction", "zh": "没有共享内存指令"},
    "plot.worst": {"en": "worst", "zh": "最差的"},
    "plot.ideal": {"en": "ideal", "zh": "理想值"},
    "plot.other": {"en": "other", "zh": "其他"},
    "plot.failed": {"en": "failed", "zh": "未通过"},
    "plot.TMA copy, 64 x 64 boxes of fp16, square matrices": {"en": "TMA copy, 64 x 64 boxes of fp16, square matrices",
                                                              "zh": "TMA 拷贝，64 x 64 的 fp16 方块，方阵"},
    "plot.column sums, 2^26 floats: tall (N = 32), square, wide (M = 64)": {"en": "column sums, 2^26 floats: tall (N = 32), square, wide (M = 64)",
                                                                            "zh": "列求和，2^26 个 float：高（N = 32）、方阵、宽（M = 64）"},
    "plot.decode GEMV y = W x, 2^26 fp16 weights: decode (8192^2), tall (K = 64), wide (N = 64)": {"en": "decode GEMV y = W x, 2^26 fp16 weights: decode (8192^2), tall (K = 64), wide (N = 64)",
                                                                                                   "zh": "解码 GEMV y = W x，2^26 个 fp16 权重：解码（8192^2）、高（K = 64）、宽（N = 64）"},
    "plot.shape (0 decode, 1 tall, 2 wide)": {"en": "shape (0 decode, 1 tall, 2 wide)", "zh": "形状（0 解码，1 高，2 宽）"},
    "plot.shape (0 tall, 1 square, 2 wide)": {"en": "shape (0 tall, 1 square, 2 wide)", "zh": "形状（0 高，1 方阵，2 宽）"},
    "plot.rows = cols": {"en": "rows = cols", "zh": "行数 = 列数"},
    "plot.the ex2.approx rate": {"en": "the ex2.approx rate", "zh": "ex2.approx 的速率"},
    "plot.batch prefill": {"en": "batch prefill", "zh": "批量预填充"},
    "plot.paged batch prefill": {"en": "paged batch prefill", "zh": "分页批量预填充"},
    "plot.ragged batch prefill": {"en": "ragged batch prefill", "zh": "不规则批量预填充"},
    "plot.page size": {"en": "page size", "zh": "页大小"},
    "plot.query heads": {"en": "query heads", "zh": "查询头"},
    "plot.floats out": {"en": "floats out", "zh": "个 float 输出"},
    "plot.fp32 out": {"en": "fp32 out", "zh": "fp32 输出"},
    "plot.day 12 progression": {"en": "day 12 progression", "zh": "第 12 天的进阶"},
    # ---- the command line's help: each help text of the parsers, found by its English (grader.cli) ----
    "help.help": {"en": "show this help message and exit",
                  "zh": "显示本帮助信息并退出"},
    "help.show-config": {"en": "versions, GPU, cache and include paths",
                         "zh": "版本、GPU、缓存与头文件搜索路径"},
    "help.compile": {"en": "compile stubs and solutions with NVRTC (no GPU needed)",
                     "zh": "用 NVRTC 编译桩文件和参考解答（不需要 GPU）"},
    "help.check": {"en": "run a day's tests, one child process per exercise",
                   "zh": "运行某一天的测试，每个练习一个子进程"},
    "help.bench": {"en": "benchmark a day's exercises; PNG plots",
                   "zh": "对某一天的练习做基准测试；输出 PNG 图"},
    "help.sass": {"en": "SASS histogram and resource use of a .cu file",
                  "zh": "一个 .cu 文件的 SASS 指令直方图和资源用量"},
    "help.stubs": {"en": "regenerate stubs from solutions/ (keeps your edits)",
                   "zh": "从 solutions/ 重新生成桩文件（保留你的修改）"},
    "help.progress": {"en": "one line per day",
                      "zh": "每天一行"},
    "help.release": {"en": "build the nbgrader course and its release",
                     "zh": "构建 nbgrader 课程及其发布版"},
    "help.sanitize": {"en": "the day's tests under compute-sanitizer (memcheck, racecheck, synccheck; initcheck "
                            "on request)",
                      "zh": "在 compute-sanitizer 下运行当天的测试（memcheck、racecheck、"
                            "synccheck；按需 initcheck）"},
    "help.autotune": {"en": "search the day 10 GEMM's configuration space on the GPU in use; save the best per "
                            "shape",
                      "zh": "在当前 GPU 上搜索第 10 天 GEMM 的配置空间；按形状保存最好的配置"},
    "help.hint": {"en": "the hints of an exercise, level by level (1 idea, 2 structure, 3 the tricky part, "
                        "explained)",
                  "zh": "一个练习的提示，逐级给出（1 思路，2 结构，3 难点及其解释）"},
    "help.debug": {"en": "where an attention kernel (day 11, day 12) first leaves the float64 reference, KV tile "
                         "by KV tile",
                   "zh": "注意力核函数（第 11、12 天）在哪个 KV 分块上第一次偏离 float64 参考结果，"
                         "逐个 KV 分块查看"},
    "help.grade-class": {"en": "autograde every (student, day) of an nbgrader course on Ray, into one gradebook",
                         "zh": "在 Ray 上自动评分 nbgrader 课程的每个（学生，天），汇入一个成绩册"},
    "help.leaderboard": {"en": "time every student's passing kernel of a day under cheat-proof rules; table, CSV "
                               "and plot",
                         "zh": "按防作弊规则为每个学生某一天通过的核函数计时；输出表格、CSV 和图"},
    "help.profile": {"en": "profile an exercise's benchmark case: Nsight Compute on a GPU, the emulator's "
                           "estimates without",
                     "zh": "对练习的基准测试用例做性能分析：有 GPU 时用 Nsight Compute，"
                           "没有时用模拟器的估计"},
    "help.notebooks": {"en": "regenerate the student notebooks from instructor/notebooks/ (keeps your edits)",
                       "zh": "从 instructor/notebooks/ 重新生成学生笔记本（保留你的修改）"},
    "help.answer": {"en": "a thought question's model answer and rubric, once you have written yours in your "
                          "notebook",
                    "zh": "思考题的参考答案和评分标准，在你把自己的答案写进笔记本之后才显示"},
    "help.student-edition": {"en": "build what a class hands students: stubs, student notebooks, the course "
                                   "package; no solutions",
                             "zh": "构建发给学生的版本：桩文件、学生笔记本、课程包；不含参考解答"},
    "help.unlock": {"en": "the course's version of a day's device functions, for the later days that build on "
                          "them",
                    "zh": "某一天的设备函数的课程版本，供在其上构建的后续各天使用"},
    "help.compile.target": {"en": "dayNN or a .cu file (default: every day)",
                            "zh": "dayNN 或一个 .cu 文件（默认：每一天）"},
    "help.compile.arch": {"en": "sm_80, sm_90, ... (repeatable; default both)",
                          "zh": "sm_80、sm_90 ...（可重复；默认两者都编译）"},
    "help.check.solutions": {"en": "check solutions/ instead of days/",
                             "zh": "检查 solutions/ 而不是 days/"},
    "help.check.timeout": {"en": "at most this many seconds per case (default 900; a hang is caught sooner)",
                           "zh": "每个用例最多运行这么多秒（默认 900；卡死会更早被发现）"},
    "help.bench.quick": {"en": "fewer sizes",
                         "zh": "少测几个规模"},
    "help.bench.out": {"en": "folder for the PNG plots",
                       "zh": "存放 PNG 图的文件夹"},
    "help.sass.compare": {"en": "a second version of the file to compare with",
                          "zh": "用来比较的该文件的第二个版本"},
    "help.sass.kernel": {"en": "only this kernel",
                         "zh": "只看这个核函数"},
    "help.sass.ptx_map": {"en": "the SASS each PTX instruction became, by source line; FILTER: opcode prefixes, "
                                "comma-separated (mma, ld.global, cp.async ...; default: memory, mma, shuffles)",
                          "zh": "每条 PTX 指令变成了哪些 SASS，按源代码行列出；FILTER：操作码前缀，"
                                "用逗号分隔（mma、ld.global、cp.async ...；默认：访存、mma、洗牌）"},
    "help.stubs.force": {"en": "replace stubs even where you edited them",
                         "zh": "即使你修改过，也替换桩文件"},
    "help.release.days": {"en": "days to release (default: every day with exercises and a notebook)",
                          "zh": "要发布的天（默认：每个有练习和笔记本的天）"},
    "help.release.force": {"en": "rebuild an existing course directory's release",
                           "zh": "重新构建已有课程目录的发布版"},
    "help.release.lang": {"en": "the lessons' language: dayNN (en), dayNN-zh (zh), or both (default en)",
                          "zh": "课程的语言：dayNN（en）、dayNN-zh（zh）或 both（默认 en）"},
    "help.sanitize.tool": {"en": "repeatable (default: memcheck, racecheck, synccheck)",
                           "zh": "可重复（默认：memcheck、racecheck、synccheck）"},
    "help.sanitize.exercise": {"en": "only this exercise (repeatable)",
                               "zh": "只运行这个练习（可重复）"},
    "help.sanitize.cases": {"en": "the first N cases of each exercise (default 3)",
                            "zh": "每个练习的前 N 个用例（默认 3）"},
    "help.sanitize.no_demos": {"en": "skip the day's planted-bug demos",
                               "zh": "跳过当天植入错误的演示"},
    "help.sanitize.demos_only": {"en": "only the day's planted-bug demos",
                                 "zh": "只运行当天植入错误的演示"},
    "help.sanitize.sanitizer": {"en": "compute-sanitizer to use (default: $COMPUTE_SANITIZER, PATH, the CUDA "
                                      "toolkit)",
                                "zh": "要使用的 compute-sanitizer（默认：$COMPUTE_SANITIZER、"
                                      "PATH、CUDA 工具包）"},
    "help.sanitize.jobs": {"en": "runs at once (default 3)",
                           "zh": "同时运行的个数（默认 3）"},
    "help.sanitize.timeout": {"en": "seconds per run (default 600)",
                              "zh": "每次运行的秒数（默认 600）"},
    "help.sanitize.log_dir": {"en": "keep each run's full sanitizer output here",
                              "zh": "把每次运行的完整 sanitizer 输出保存在这里"},
    "help.autotune.shapes": {"en": "N (cube) or MxNxK, K a multiple of 8 (default: 4096 8192)",
                             "zh": "N（立方）或 MxNxK，K 为 8 的倍数（默认：4096 8192）"},
    "help.autotune.solutions": {"en": "tune solutions/day10/gemm.cu instead of your days/day10/gemm.cu",
                                "zh": "调优 solutions/day10/gemm.cu，"
                                      "而不是你的 days/day10/gemm.cu"},
    "help.autotune.max_configs": {"en": "time only the first N configurations (the default one is always first)",
                                  "zh": "只为前 N 个配置计时（默认配置总是第一个）"},
    "help.autotune.repeat": {"en": "timed runs per configuration and shape",
                             "zh": "每个配置和形状的计时运行次数"},
    "help.autotune.list": {"en": "print the search space and exit (no GPU)",
                           "zh": "打印搜索空间并退出（不需要 GPU）"},
    "help.autotune.out": {"en": "where the best configurations go (JSON)",
                          "zh": "最佳配置写到哪里（JSON）"},
    "help.hint.level": {"en": "1 the idea (default), 2 the structure, 3 the tricky part, explained",
                        "zh": "1 思路（默认），2 结构，3 难点及其解释"},
    "help.hint.lang": {"en": "en or zh (default: $COURSE_LANG, zh in a Chinese lesson's folder, else en)",
                       "zh": "en 或 zh（默认：$COURSE_LANG；在中文课程的文件夹里为 zh，否则为 en）"},
    "help.debug.day": {"en": "day11 or day12",
                       "zh": "day11 或 day12"},
    "help.debug.exercise": {"en": "day 12: attention_scalar, attention_mma(_causal), prefill(_causal); day 11: "
                                  "decode_warp, decode_attention, decode_paged",
                            "zh": "第 12 天：attention_scalar、attention_mma(_causal)、"
                                  "prefill(_causal)（预填充）；第 11 天：decode_warp、"
                                  "decode_attention、decode_paged"},
    "help.debug.solutions": {"en": "debug the solution instead of yours",
                             "zh": "调试参考解答，而不是你的"},
    "help.debug.source": {"en": "debug this .cu file as the exercise's kernel",
                          "zh": "把这个 .cu 文件当作练习的核函数来调试"},
    "help.debug.seed": {"en": "the inputs' seed (default: fresh; $COURSE_SEED replays)",
                        "zh": "输入的种子（默认：新的；$COURSE_SEED 可重放）"},
    "help.debug.tile": {"en": "keys per tile (default: the kernel's, read from its file)",
                        "zh": "每个分块的键数（默认：核函数自己的，从它的文件读取）"},
    "help.debug.heads": {"en": "query heads; default day 12: 2, day 11: 4",
                         "zh": "查询头数；默认第 12 天：2，第 11 天：4"},
    "help.debug.q_len": {"en": "queries (day 12); default day 12: 80",
                         "zh": "查询数（第 12 天）；默认第 12 天：80"},
    "help.debug.kv_len": {"en": "keys per request; default day 12: 200, day 11: 40",
                          "zh": "每个请求的键数；默认第 12 天：200，第 11 天：40"},
    "help.debug.head_dim": {"en": "64 or 128 (day 12); default day 12: 64",
                            "zh": "64 或 128（第 12 天）；默认第 12 天：64"},
    "help.debug.batch": {"en": "requests (day 11); default day 11: 2",
                         "zh": "请求数（第 11 天）；默认第 11 天：2"},
    "help.debug.kv_heads": {"en": "KV heads, GQA (day 11); default day 11: 2",
                            "zh": "KV 头数，GQA（第 11 天）；默认第 11 天：2"},
    "help.debug.page_size": {"en": "tokens per page (day 11, paged); default day 11: 16",
                             "zh": "每页的词元数（第 11 天，分页）；默认第 11 天：16"},
    "help.debug.chunks": {"en": "split-KV chunks (day 11, paged); default day 11: 3",
                          "zh": "split-KV 的块数（第 11 天，分页）；默认第 11 天：3"},
    "help.debug.causal": {"en": "day 12: causal mask (default: as the exercise's name says)",
                          "zh": "第 12 天：因果掩码（默认：按练习名字所示）"},
    "help.debug.no_causal": {"en": "day 12: no mask",
                             "zh": "第 12 天：无掩码"},
    "help.debug.fresh": {"en": "the defaults and a fresh seed, not your last failing case (replayed by default)",
                         "zh": "使用默认值和新的种子，而不是你上一次失败的用例（默认会重放它）"},
    "help.grade-class.course_dir": {"en": "the nbgrader course folder (python -m grader release)",
                                    "zh": "nbgrader 课程文件夹（python -m grader release）"},
    "help.grade-class.days": {"en": "assignments to grade (dayNN, dayNN-zh; default all)",
                              "zh": "要评分的作业（dayNN、dayNN-zh；默认全部）"},
    "help.grade-class.students": {"en": "students to grade (default: all in submitted/)",
                                  "zh": "要评分的学生（默认：submitted/ 中的全部）"},
    "help.grade-class.address": {"en": "a Ray cluster to join (default: worker processes of this machine)",
                                 "zh": "要加入的 Ray 集群（默认：本机的工作进程）"},
    "help.grade-class.gpus_per_task": {"en": "GPUs each (student, day) takes on a GPU machine (default 1; 0.5 "
                                             "runs two per GPU)",
                                       "zh": "每个（学生，天）在 GPU 机器上占用的 GPU 数（默认 1；"
                                             "0.5 表示每块 GPU 跑两个）"},
    "help.grade-class.workers": {"en": "tasks at once on this machine (default: 1 / --gpus-per-task per GPU; on the "
                                       "emulator one per core)",
                                 "zh": "在本机同时运行的任务数（默认：每块 GPU 1 / --gpus-per-task 个；模拟器上每个核心一个）"},
    "help.grade-class.timeout": {"en": "seconds one (student, day) may take before it is stopped (default 3600)",
                                 "zh": "一个（学生，天）在被停止前最多可用的秒数（默认 3600）"},
    "help.grade-class.force": {"en": "regrade pairs the gradebook already holds",
                               "zh": "重新评分成绩册里已有的（学生，天）"},
    "help.leaderboard.day": {"en": "dayNN",
                             "zh": "dayNN（哪一天）"},
    "help.leaderboard.exercise": {"en": "one exercise (default: every exercise of the day)",
                                  "zh": "一个练习（默认：当天的每个练习）"},
    "help.leaderboard.students": {"en": "these students only",
                                  "zh": "只看这些学生"},
    "help.leaderboard.runs": {"en": "timed runs (default 20; 2 on the emulator)",
                              "zh": "计时运行次数（默认 20；模拟器上 2）"},
    "help.leaderboard.warmup": {"en": "warm-up runs (default 3; 1 on the emulator)",
                                "zh": "预热运行次数（默认 3；模拟器上 1）"},
    "help.profile.exercise": {"en": "default: every benchmarked exercise of the day",
                              "zh": "默认：当天每个有基准测试的练习"},
    "help.profile.solutions": {"en": "profile solutions/ instead of days/",
                               "zh": "分析 solutions/ 而不是 days/"},
    "help.profile.compare": {"en": "yours and the solution side by side",
                             "zh": "你的和参考解答并排对比"},
    "help.profile.metrics": {"en": "table: the table's metrics (fast); detailed / full: ncu's section sets too, "
                                   "for the Nsight Compute GUI",
                             "zh": "table：只收集表格里的指标（快）；"
                                   "detailed / full：再加上 ncu 的 section 集合，"
                                   "供 Nsight Compute 图形界面使用"},
    "help.profile.all_sizes": {"en": "a column for every benchmark size, not only the largest",
                               "zh": "每个基准测试规模一列，而不只是最大的"},
    "help.profile.timeline": {"en": "day14: the decode step stage by stage",
                              "zh": "day14：逐级查看解码步骤"},
    "help.profile.timeout": {"en": "seconds for the profiling run (default 900)",
                             "zh": "性能分析运行的秒数（默认 900）"},
    "help.notebooks.day": {"en": "dayNN (default: every day)",
                           "zh": "dayNN（默认：每一天）"},
    "help.notebooks.force": {"en": "replace notebooks even where you edited them",
                             "zh": "即使你修改过，也替换笔记本"},
    "help.answer.question": {"en": "the thought question's number (1, 2, ...)",
                             "zh": "思考题的编号（1、2 ...）"},
    "help.student-edition.course_dir": {"en": "a new folder for the edition",
                                        "zh": "存放这个版本的新文件夹"},
    "help.student-edition.days": {"en": "dayNN ... whose notebooks it holds (default: every day); the files of "
                                        "every day up to the last come too",
                                  "zh": "包含哪些天的笔记本 dayNN ...（默认：每一天）；直到最后一天的每天的文件也会一起放入"},
    "help.student-edition.lang": {"en": "the notebooks' language: en, zh or both (default)",
                                  "zh": "笔记本的语言：en、zh 或 both（默认）"},
    "help.student-edition.unlocked": {"en": "days released: their course headers (solutions/include/dayNN) and "
                                            "model answers",
                                      "zh": "已解锁的天：它们的课程头文件（solutions/include/dayNN）和参考答案"},
    "help.student-edition.force": {"en": "write over a folder that is not empty",
                                   "zh": "覆盖写入一个非空文件夹"},
    "help.unlock.day": {"en": "dayNN: the day whose course headers later days include",
                        "zh": "dayNN：其课程头文件被后续各天包含的那一天"},
    "help.unlock.source": {"en": "a student edition: the folder holding dayNN/ that your instructor handed out",
                           "zh": "学生版：你的老师发下来的、包含 dayNN/ 的文件夹"},
    # ---- the exercises' own diagnoses (grader/exercises/*.py): names and identifiers stay as the code has them ----
    "arg.one_of": {"en": "{what} {value!r}: expected one of {known}", "zh": "{what} {value!r}：应为 {known} 之一"},
    "day01.block_rank": {"en": "block rank", "zh": "线程块序号"},
    "day01.thread_rank": {"en": "thread rank", "zh": "线程序号"},
    "day01.warp": {"en": "warp", "zh": "线程束"},
    "day01.lane": {"en": "lane", "zh": "通道"},
    "day01.never_written": {"en": " (-1: never written)", "zh": "（-1：从未写入）"},
    "day01.thread_info": {"en": "thread_info {field} (grid {grid}, block {block}): {wrong} of {total} threads wrong; "
                                "first at global rank {rank} (block rank {block_rank}, thread rank {thread_rank}): "
                                "expected {expected}, got {got}{never} [seed {seed}]",
                          "zh": "thread_info {field}（网格 {grid}，线程块 {block}）：{total} 个线程中有 {wrong} 个错误；"
                                "第一个在全局序号 {rank}（线程块序号 {block_rank}，线程序号 {thread_rank}）："
                                "期望 {expected}，得到 {got}{never} [种子 {seed}]"},
    "day02.truncated": {"en": " (every wrong value is x / scale truncated instead of rounded to nearest)",
                        "zh": "（每个错误的值都是 x / scale 被截断的结果，而不是舍入到最近的整数）"},
    "day02.clamp": {"en": " (every wrong value is -128: clamp to [-127, 127], the symmetric range)",
                    "zh": "（每个错误的值都是 -128：应钳位到对称的范围 [-127, 127]）"},
    "day02.poison": {"en": " (-1 at every wrong value: the poison 0xFF, never written?)",
                     "zh": "（每个错误的值都是 -1：即毒值 0xFF，从未写入？）"},
    "day02.quant_wrong": {"en": "quantize_int8 q (rows={rows}, d={d}): {wrong} of {size} values wrong; first at (row {r}, "
                                "col {c}): x = {x:.6g}, scale = {scale:.6g}, x / scale = {v:.4f}, expected {expected} "
                                "(nearest, ties to even, within [-127, 127]), got {got}{why}{replay}",
                          "zh": "quantize_int8 q（rows={rows}，d={d}）：{size} 个值中有 {wrong} 个错误；第一个在（第 {r} 行，"
                                "第 {c} 列）：x = {x:.6g}，scale = {scale:.6g}，x / scale = {v:.4f}，期望 {expected}"
                                "（舍入到最近，平局时偶数优先，在 [-127, 127] 之内），得到 {got}{why}{replay}"},
    "day03.toward_zero": {"en": " (towards zero: truncated instead of rounded?)", "zh": "（朝零方向：被截断而不是舍入？）"},
    "day03.tie": {"en": " (an exact tie: ties go to the EVEN neighbour)",
                  "zh": "（恰好是平局：偶数优先，取最低位为偶数的那个邻居）"},
    "day03.bits": {"en": "bf16_bits bits (n={n}): {wrong} of {n} wrong; first at index {i}: x = {x} (bits {bits}), "
                         "expected {expected}, got {got}{hint}{replay}",
                   "zh": "bf16_bits bits（n={n}）：{n} 个中有 {wrong} 个错误；第一个在下标 {i}：x = {x}（位模式 {bits}），"
                         "期望 {expected}，得到 {got}{hint}{replay}"},
    "day03.back": {"en": "bf16_bits back (n={n}): {wrong} of {n} wrong; first at index {i}: bf16 bits {bits}, expected "
                         "{expected}, got {got}{replay}",
                   "zh": "bf16_bits back（n={n}）：{n} 个中有 {wrong} 个错误；第一个在下标 {i}：bf16 位模式 {bits}，期望 "
                         "{expected}，得到 {got}{replay}"},
    "day03.packed": {"en": "bf16_bits {name} (n={n}): {wrong} of {words} words wrong; first at j = {j} (x[{i0}] = {x0}, "
                           "x[{i1}] = {x1}): expected {expected}, got {got}{swapped}{replay}",
                     "zh": "bf16_bits {name}（n={n}）：{words} 个字中有 {wrong} 个错误；第一个在 j = {j}（x[{i0}] = {x0}，"
                           "x[{i1}] = {x1}）：期望 {expected}，得到 {got}{swapped}{replay}"},
    "day03.swapped": {"en": " (halves swapped: x[2j] goes in the LOW 16 bits)", "zh": "（两半放反了：x[2j] 应放在低 16 位）"},
    "day03.bound.exp2": {"en": "2 ulp from the correctly rounded result (seen: 2.06 ulp from exact)",
                         "zh": "距正确舍入的结果 2 ulp（实测：距精确值 2.06 ulp）"},
    "day03.bound.log2": {"en": "absolute error 2^-22 for x in (0.5, 2), relative error 2^-22 elsewhere "
                               "(seen: 2^-22.15 and 2^-22.06)",
                         "zh": "x 在 (0.5, 2) 内绝对误差 2^-22，其余相对误差 2^-22（实测：2^-22.15 和 2^-22.06）"},
    "day03.bound.rsqrt": {"en": "relative error 2^-22.9 (seen: 2^-22.93)", "zh": "相对误差 2^-22.9（实测：2^-22.93）"},
    "day03.bound.rcp": {"en": "1 ulp (seen: 0.98 ulp)", "zh": "1 ulp（实测：0.98 ulp）"},
    "day03.bound.tanh": {"en": "relative error 2^-11 (seen: 2^-16.5 on an H100)",
                         "zh": "相对误差 2^-11（实测：H100 上为 2^-16.5）"},
    "day03.bound.exp": {"en": "ex2's 2.5 ulp + a relative 2 |x| 2^-24 from rounding x * log2e (derived)",
                        "zh": "ex2 的 2.5 ulp + 舍入 x * log2e 带来的相对误差 2 |x| 2^-24（推导所得）"},
    "day03.bound.log": {"en": "2^-21: absolute for x in (0.5, 2), relative elsewhere (derived from lg2's 2^-22)",
                        "zh": "2^-21：x 在 (0.5, 2) 内为绝对误差，其余为相对误差（由 lg2 的 2^-22 推导所得）"},
    "day03.sfu_peak": {"en": "SFU peak: 16 / clock / SM x {sms} SMs x {ghz} GHz = {peak} Texp/s",
                       "zh": "SFU 峰值：每个 SM 每个时钟周期 16 个 x {sms} 个 SM x {ghz} GHz = {peak} Texp/s"},
    "day03.gelu_allowed": {"en": "0.5 |x| 2^-11 (tanh.approx) + 2^-20 |x| (float rounding)",
                           "zh": "0.5 |x| 2^-11（tanh.approx）+ 2^-20 |x|（浮点舍入）"},
    "day03.to_fp16": {"en": " + rounding to fp16", "zh": " + 舍入到 fp16"},
    # ---- python -m grader sanitize (grader.sanitize) ----
    "sanitize.not_found": {"en": "compute-sanitizer not found: it comes with the CUDA toolkit. Put its bin/ on PATH, "
                                 "set {env}=/path/to/compute-sanitizer, or pass --sanitizer PATH",
                           "zh": "找不到 compute-sanitizer：它随 CUDA 工具包提供。请把它的 bin/ 加入 PATH，"
                                 "设置 {env}=/path/to/compute-sanitizer，或传入 --sanitizer PATH"},
    "sanitize.no_such": {"en": "no compute-sanitizer executable at {path}", "zh": "{path} 处没有 compute-sanitizer 可执行文件"},
    "sanitize.needs_gpu": {"en": "compute-sanitizer needs a CUDA GPU: {reason}. The emulator reports out-of-bounds "
                                 "accesses and shared-memory races itself.",
                           "zh": "compute-sanitizer 需要 CUDA GPU：{reason}。模拟器自己就会报告越界访问和共享内存的竞争。"},
    "sanitize.cases": {"en": "cases must be >= 1 (got {cases})", "zh": "cases 必须 >= 1（得到 {cases}）"},
    "sanitize.jobs": {"en": "jobs must be >= 1 and timeout > 0 (got {jobs}, {timeout})",
                      "zh": "jobs 必须 >= 1 且 timeout > 0（得到 {jobs}、{timeout}）"},
    "sanitize.tool": {"en": "unknown tool {tool}: expected one of {tools}", "zh": "未知的工具 {tool}：应为 {tools} 之一"},
    "sanitize.no_exercises": {"en": "{day} has no exercises yet (see course_index.md)",
                              "zh": "{day} 还没有练习（见 course_index.md）"},
    "sanitize.no_demos": {"en": "{day} has no planted-bug demos", "zh": "{day} 没有埋下错误的演示"},
    "sanitize.start": {"en": "{runs} runs under {exe} ({folder}, the first {cases} cases of each exercise, cupy's "
                             "memory pool off) ...",
                       "zh": "在 {exe} 下运行 {runs} 次（{folder}，每个练习的前 {cases} 个用例，cupy 的内存池已关闭）……"},
    "sanitize.head.tool": {"en": "tool", "zh": "工具"},
    "sanitize.head.exercise": {"en": "exercise", "zh": "练习"},
    "sanitize.head.check": {"en": "check", "zh": "检查"},
    "sanitize.head.finding": {"en": "finding", "zh": "发现"},
    "sanitize.head.kernel": {"en": "kernel", "zh": "核函数"},
    "sanitize.head.where": {"en": "where", "zh": "位置"},
    "sanitize.head.count": {"en": "count", "zh": "次数"},
    "sanitize.demo": {"en": "demo {name}", "zh": "演示 {name}"},
    "sanitize.no_finding": {"en": "no findings", "zh": "无"},
    "sanitize.race": {"en": "race ({level}): {first} vs {others}", "zh": "竞争（{level}）：{first}与{others}"},
    "sanitize.level.error": {"en": "error", "zh": "错误"},
    "sanitize.level.warning": {"en": "warning", "zh": "警告"},
    "sanitize.access.read": {"en": "read", "zh": "读"},
    "sanitize.access.write": {"en": "write", "zh": "写"},
    "sanitize.other_lines": {"en": " (other access at line {lines})", "zh": "（另一次访问在第 {lines} 行）"},
    "sanitize.invalid": {"en": "Invalid {space} {access} of size {size} bytes",
                         "zh": "无效的 {space} {access}访问，大小 {size} 字节"},
    "sanitize.timed_out": {"en": "still running after {seconds} s", "zh": "{seconds} 秒后仍在运行"},
    "sanitize.not_reported": {"en": "the sanitized process {how} before the check reported:\n{tail}",
                              "zh": "被检查的进程在检查报告结果之前就结束了（{how}）：\n{tail}"},
    "sanitize.problem.run": {"en": "{check}: {message}", "zh": "{check}：{message}"},
    "sanitize.problem.findings": {"en": "{count} finding(s): see the lines named above",
                                  "zh": "{count} 处发现：见上表列出的行"},
    "sanitize.problem.missed": {"en": "the planted bug was NOT reported (is cupy's memory pool off? does this "
                                      "compute-sanitizer support this GPU?)",
                                "zh": "埋下的错误没有被报告（cupy 的内存池关掉了吗？这个 compute-sanitizer 支持这块 GPU 吗？）"},
    "sanitize.problem.line": {"en": "{tool} {label}: {problem}", "zh": "{tool} {label}：{problem}"},
    "sanitize.clean": {"en": "no findings in the exercises", "zh": "各练习中没有发现问题"},
    "sanitize.clean_demos": {"en": "; every planted bug was reported", "zh": "；每个埋下的错误都被报告了"},
    "day04.demo.race": {"en": "planted race: the tile is read without __syncthreads",
                        "zh": "埋下的竞争：读取分块前没有 __syncthreads"},
    "day04.demo.oob": {"en": "planted out-of-bounds write: no bounds check on the store",
                       "zh": "埋下的越界写入：存储前没有边界检查"},
    "day04.sizes": {"en": "rows and cols must be >= 1 (got {rows}, {cols})", "zh": "rows 和 cols 都必须 >= 1（得到 {rows}、{cols}）"},
    "day04.stride": {"en": "stride must be >= 0 and words >= 1 (got {stride}, {words})",
                     "zh": "步长 stride 必须 >= 0，words 必须 >= 1（得到 {stride}、{words}）"},
    "day04.sweep": {"en": "iters must be even and >= 2; threads a multiple of 32 in 32..1024",
                    "zh": "iters 必须是 >= 2 的偶数；线程数 threads 必须是 32..1024 之间 32 的倍数"},
    "day04.strides": {"en": "strides must lie in 0..33 (the kernel's buffer), got {strides}",
                      "zh": "步长 strides 必须在 0..33 之内（核函数缓冲区的大小），得到 {strides}"},
    "day05.density": {"en": "density {density!r}: expected a fraction in [0, 1]", "zh": "density {density!r}：应为 [0, 1] 之间的比例"},
    "day05.past_count": {"en": "compact_scatter out_idx past the count ({count}) {where}: {written} elements written; "
                               "first at index {index}{replay}",
                         "zh": "compact_scatter out_idx 在计数（{count}）之后 {where}：写入了 {written} 个元素；"
                               "第一个在下标 {index}{replay}"},
    "day10.swizzle_rows": {"en": "swizzle_offsets_{cols}: row {r} is not a permutation of its own elements {lo}..{hi} "
                                 "(got {got} ...): a swizzle moves chunks within their row, never across rows",
                           "zh": "swizzle_offsets_{cols}：第 {r} 行不是它自己的元素 {lo}..{hi} 的一个排列（得到 {got} ...）："
                                 "交错排布只在行内移动 16 字节块，从不跨行"},
    "day10.swizzle_chunk": {"en": "swizzle_offsets_{cols}: element (row {r}, col {c}) is stored at {at}, {within} after "
                                  "its chunk's first element (expected {expected}): the 8 elements of a 16-byte chunk "
                                  "must stay together and in order (cp.async and ldmatrix move whole chunks)",
                            "zh": "swizzle_offsets_{cols}：元素（第 {r} 行，第 {c} 列）存放在 {at}，在它所在 16 字节块的第一个"
                                  "元素之后 {within} 处（期望 {expected}）：一个 16 字节块的 8 个元素必须连在一起、保持顺序"
                                  "（cp.async 和 ldmatrix 都整块移动）"},
    "day10.swizzle_conflict": {"en": "swizzle_offsets_{cols}: rows {r0}..{r1} of chunk column {chunk} land in 16-byte bank "
                                     "slots {slots} (of 0..7 in a 128-byte line): an ldmatrix reading them has a "
                                     "{ways}-way bank conflict; the 8 rows need 8 different slots",
                               "zh": "swizzle_offsets_{cols}：第 {chunk} 个块列的第 {r0}..{r1} 行落在 16 字节的存储体槽位 "
                                     "{slots}（一条 128 字节的缓存行中的 0..7）：读取它们的 ldmatrix 有 {ways} 路存储体冲突；"
                                     "这 8 行需要 8 个不同的槽位"},
    "day10.swizzle_valid": {"en": "rows_valid {rows_valid} / cols_valid {cols_valid}: at most {rows} / {cols}, cols_valid "
                                  "a multiple of {chunk}",
                            "zh": "rows_valid {rows_valid} / cols_valid {cols_valid}：最多 {rows} / {cols}，cols_valid 须是 "
                                  "{chunk} 的倍数"},
    "day07.copy_bytes": {"en": "copy_bytes={copy_bytes!r}: cp.async copies one of {sizes} bytes",
                         "zh": "copy_bytes={copy_bytes!r}：cp.async 每次拷贝 {sizes} 字节之一"},
    "day07.n": {"en": "n={n}: need at least one element", "zh": "n={n}：至少需要一个元素"},
    "day07.stages": {"en": "stages={stages!r}: the file has kernels for {known}",
                     "zh": "stages={stages!r}：文件里只有 {known} 级流水线的核函数"},
    "day07.n_blocks": {"en": "n={n}, blocks={blocks}: both must be at least 1", "zh": "n={n}，blocks={blocks}：元素数和线程块数都必须至少为 1"},
    "day07.m_n": {"en": "M={m}, N={n}: both must be at least 1", "zh": "M={m}，N={n}：两者都必须至少为 1"},
    "day08.sizes": {"en": "{bad}: sizes must be integers >= 1", "zh": "{bad}：大小必须是 >= 1 的整数"},
    "day08.max_len": {"en": "max_len={max_len}: lengths cannot be negative", "zh": "max_len={max_len}：长度不能为负"},
    "day09.two_lanes": {"en": "two lanes hold one element", "zh": "两个通道持有同一个元素"},
    "day15.k_slices": {"en": "k={k}: wgmma_tile takes K in slices of {tile}", "zh": "k={k}：wgmma_tile 按 {tile} 一片来取 K"},
    "day15.tma_rows": {"en": "{sizes}: a TMA tensor's rows must be multiples of 16 bytes ({rule})",
                       "zh": "{sizes}：TMA 张量的每一行都必须是 16 字节的倍数（{rule}）"},
    "day15.tile_of": {"en": "tile_of({t}) with {tiles_m} x {tiles_n} tiles gave (tm, tn) = {got}, expected {expected} "
                            "(grouped order, GROUP = {group} tile-rows); {wrong} of {count} tiles differ",
                      "zh": "tile_of({t}) 在 {tiles_m} x {tiles_n} 个分块下给出 (tm, tn) = {got}，期望 {expected}"
                            "（分组顺序，GROUP = {group} 个分块行）；{count} 个分块中有 {wrong} 个不同"},
    "day10.empty": {"en": "empty product: M={m}, N={n}, K={k}", "zh": "乘积为空：M={m}，N={n}，K={k}"},
    "day10.fp8_k": {"en": "K = {k} is not a multiple of 16: rows of e4m3 A and B must start 16-byte aligned for cp.async. "
                          "Pad both with zeros to K = {padded}.",
                    "zh": "K = {k} 不是 16 的倍数：e4m3 的 A 和 B 的每一行都必须从 16 字节对齐处开始，cp.async 才能拷贝。"
                          "请把两者用零填充到 K = {padded}。"},
    "day10.gemv_sizes": {"en": "N={n}, K={k}: both must be at least 1", "zh": "N={n}，K={k}：两者都必须至少为 1"},
    "day11.head_norm": {"en": "{name}: request {b}, head {h}: relative error norm {err} exceeds {tol} for that head alone "
                              "({bad} of {heads} heads do){replay}",
                        "zh": "{name}：请求 {b}，头 {h}：仅这一个头的相对误差范数 {err} 就超过 {tol}"
                              "（{heads} 个头中有 {bad} 个超过）{replay}"},
    "day11.gqa": {"en": "num_qo_heads={hq} must be a positive multiple of num_kv_heads={hkv} (GQA)",
                  "zh": "num_qo_heads={hq} 必须是 num_kv_heads={hkv} 的正整数倍（GQA）"},
    "day11.array": {"en": "{name}: expected a C-contiguous {dtype} device array with {ndim} dims, got {got} of shape {shape}",
                    "zh": "{name}：期望 C 连续、{ndim} 维的 {dtype} 设备数组，得到形状为 {shape} 的 {got}"},
    "day11.head_dim": {"en": "{name}: head_dim {head_dim}; the kernel takes head_dim {dims}",
                       "zh": "{name}：head_dim {head_dim}；核函数只接受 head_dim {dims}"},
    "day11.m_inf": {"en": "online_softmax m {where}: row {r} has seen only -inf scores up to tile {t}, so m must stay -inf; "
                          "got {got}{replay}",
                    "zh": "online_softmax m {where}：第 {r} 行到分块 {t} 为止只见过 -inf 分数，所以 m 必须保持 -inf；"
                          "得到 {got}{replay}"},
    "day11.o_row": {"en": "online_softmax o {where}: row {r} after tile {t}: expected {expected}, got {got} "
                          "(relative error {err} > 1e-4){replay}",
                    "zh": "online_softmax o {where}：第 {r} 行在分块 {t} 之后：期望 {expected}，得到 {got}"
                          "（相对误差 {err} > 1e-4）{replay}"},
    "day11.merge": {"en": "merge_states: v must be float32 [rows, S, {head_dim}] and lse2 float32 [rows, S], both "
                          "C-contiguous; got {v} and {lse2}",
                    "zh": "merge_states：v 必须是 float32 [rows, S, {head_dim}]，lse2 必须是 float32 [rows, S]，两者都要 "
                          "C 连续；得到 {v} 和 {lse2}"},
    "day11.kv_match": {"en": "k {k} and v {v} must match each other and q's batch ({batch})",
                       "zh": "k {k} 和 v {v} 必须彼此一致，并与 q 的 batch（{batch}）一致"},
    "day11.no_keys": {"en": "kv_len is 0: attention over no keys is undefined", "zh": "kv_len 为 0：没有键的注意力没有定义"},
    "day11.pages": {"en": "v_pages {v} must match k_pages {k}", "zh": "v_pages {v} 必须与 k_pages {k} 一致"},
    "day11.scales": {"en": "k_scale, v_scale ({k_scale}, {v_scale}) are for an fp8 cache; this one is {kv_dtype}",
                     "zh": "k_scale、v_scale（{k_scale}，{v_scale}）用于 fp8 缓存；这个缓存是 {kv_dtype}"},
    "day11.fp8_tokens": {"en": "{label}: e4m3 over float16 KV in tokens per second at the same kv_len (kv_len: ratio): {ratios}",
                         "zh": "{label}：相同 kv_len 下 e4m3 KV 与 float16 KV 每秒处理 token 数之比（kv_len：比值）：{ratios}"},
    "day11.fp8_not_held": {"en": "{label}: drawn, not held to the target: the file leaves FP8_ON_TENSOR_CORES off, so "
                                 "the e4m3 cache runs on its update() (the fp8 path on the tensor cores is exercise "
                                 "4's optional last part)",
                           "zh": "{label}：只画出，不按目标要求：这个文件没有打开 FP8_ON_TENSOR_CORES，所以 e4m3 缓存走的是"
                                 "它的 update()（张量核心上的 fp8 路径是练习 4 最后的选做部分）"},
    "day11.max_len": {"en": "split-KV (num_chunks > 1) needs max_len, the longest request's length",
                      "zh": "split-KV（num_chunks > 1）需要 max_len，即最长请求的长度"},
    "day12.anchor_note": {"en": "torch's flash SDPA is not available here: the ceiling is the figure torch reached on the "
                                "H100 (platform-notes.md), NOT a measurement of this run",
                          "zh": "这里没有 torch 的 flash SDPA：上限是 torch 在 H100 上达到的数值（platform-notes.md），"
                                "并不是本次运行的测量结果"},
    "day12.head_dim": {"en": "head_dim={head_dim}: the kernels are written for {dims}", "zh": "head_dim={head_dim}：核函数是为 {dims} 写的"},
    "day12.lengths": {"en": "q_len={q_len}, kv_len={kv_len}: both must be >= 1", "zh": "q_len={q_len}，kv_len={kv_len}：两者都必须 >= 1"},
    "day12.causal": {"en": "causal attention with q_len={q_len} > kv_len={kv_len}: the first {count} queries would see no key",
                     "zh": "q_len={q_len} > kv_len={kv_len} 的因果注意力：前 {count} 个查询将看不到任何键"},
    "day12.pools": {"en": "q {q}, k_pages {k}, v_pages {v}: pools [pages, page_size, Hkv, D] alike, D one of {dims}",
                    "zh": "q {q}，k_pages {k}，v_pages {v}：两个池的形状都应为 [pages, page_size, Hkv, D]，D 为 {dims} 之一"},
    "day12.gqa": {"en": "num_qo_heads={hq} must be a multiple of num_kv_heads={hkv}",
                  "zh": "num_qo_heads={hq} 必须是 num_kv_heads={hkv} 的倍数"},
    "day12.tables": {"en": "qo_indptr, kv_indptr ([batch + 1]), kv_indices and kv_last_page_len ([batch]) must be int32",
                     "zh": "qo_indptr、kv_indptr（[batch + 1]）、kv_indices 和 kv_last_page_len（[batch]）必须是 int32"},
    "day13.seq": {"en": "seq {seq}: kernel_mask reads one column of v per key, so 1 <= seq <= 64",
                  "zh": "seq {seq}：kernel_mask 每个键读取 v 的一列，所以需要 1 <= seq <= 64"},
    "day13.not_written": {"en": "{value} (not written)", "zh": "{value}（未写入）"},
    "day13.mask": {"en": "day13::{which}_visible(q_pos={q}, key={k}, {name}={param}) returned {said}, expected {expected}: "
                         "{wrong} of {pairs} (q_pos, key) pairs of positions 0..{last} wrong (mask_table, before any "
                         "attention)",
                   "zh": "day13::{which}_visible(q_pos={q}, key={k}, {name}={param}) 返回了 {said}，期望 {expected}："
                         "位置 0..{last} 的 {pairs} 个 (q_pos, key) 对中有 {wrong} 个错误（mask_table，在任何注意力计算之前）"},
    "day16.head_dim": {"en": "head_dim={head_dim}: attention_wgmma is built for {dims}",
                       "zh": "head_dim={head_dim}：attention_wgmma 是为 {dims} 构建的"},
    "day16.sizes": {"en": "heads={heads}, seq={seq}: both must be >= 1", "zh": "heads={heads}，seq={seq}：两者都必须 >= 1"},
    "day14.shares": {"en": "binding.as_cupy copied a torch {name} tensor: it must share its memory (cupy.from_dlpack)",
                     "zh": "binding.as_cupy 复制了一个 torch {name} 张量：它必须共享其内存（cupy.from_dlpack）"},
    "day14.torch_out": {"en": "binding.rmsnorm(..., out=out) with torch {name} tensors must return out",
                        "zh": "对 torch {name} 张量，binding.rmsnorm(..., out=out) 必须返回 out"},
    "day14.torch_kind": {"en": "binding.rmsnorm of torch {name} tensors returned {kind}: expected a CUDA torch {name} "
                               "tensor (to_caller)",
                         "zh": "binding.rmsnorm 对 torch {name} 张量返回了 {kind}：期望一个 CUDA 上的 torch {name} 张量"
                               "（to_caller）"},
    "day14.return_out": {"en": "binding.rmsnorm(x, weight, out=out) must return out {where}",
                         "zh": "binding.rmsnorm(x, weight, out=out) 必须返回 out {where}"},
    "day14.idle": {"en": "binding.rmsnorm {where}: the stream was idle when rmsnorm returned: something synchronized "
                         "(a binding never waits: the caller's stream orders the work)",
                   "zh": "binding.rmsnorm {where}：rmsnorm 返回时流已经空闲：有什么地方做了同步（绑定从不等待："
                         "由调用者的流安排工作的先后）"},
    "day14.bad_call": {"en": "binding.rmsnorm with a bad {wrong}", "zh": "用错误的 {wrong} 调用 binding.rmsnorm"},
    "day14.expected": {"en": "expected a one-line {error} naming {words}", "zh": "期望一行的 {error}，其中提到 {words}"},
    "day14.accepted": {"en": "{call}: accepted without an error (it must be refused before any launch)",
                       "zh": "{call}：没有报错就接受了（必须在任何启动之前拒绝）"},
    "day14.wrong_error": {"en": "{call}: {expected}; got {raised}: {message}", "zh": "{call}：{expected}；得到 {raised}：{message}"},
    "day14.launched_first": {"en": "{call}: out (written: a kernel was launched before the arguments were checked)",
                             "zh": "{call}：out（被写入了：在检查参数之前就启动了核函数）"},
    "day14.word.host": {"en": "host memory", "zh": "主机内存"},
    "day14.word.float32": {"en": "dtype float32", "zh": "dtype 是 float32"},
    "day14.word.contiguous": {"en": "not contiguous", "zh": "不是连续的"},
    "day14.label.weight": {"en": "a weight of the wrong size", "zh": "大小不对的 weight"},
    "day14.label.out": {"en": "an out of the wrong shape", "zh": "形状不对的 out"},
    "day14.label.3d": {"en": "a 3-D x", "zh": "三维的 x"},
    "day14.label.host": {"en": "host memory (numpy)", "zh": "主机内存中的数组（numpy）"},
    "day14.label.cuda_weight": {"en": "CUDA tensors and a weight of the wrong size", "zh": "CUDA 张量和大小不对的 weight"},
    "day14.ffi_with": {"en": "rmsnorm_ffi rmsnorm with {label}", "zh": "用{label}调用 rmsnorm_ffi rmsnorm"},
    "day14.ffi_accepted": {"en": "{what}: accepted (it must be refused before any launch)",
                           "zh": "{what}：被接受了（必须在任何启动之前拒绝）"},
    "day14.ffi_not_value_error": {"en": "{what}: expected a one-line ValueError; got {raised}: {message}",
                                  "zh": "{what}：期望一行的 ValueError；得到 {raised}：{message}"},
    "day14.ffi_not_matching": {"en": "{what}: expected the one-line ValueError '{pattern}' (a regex); got: {message}",
                               "zh": "{what}：期望一行的 ValueError '{pattern}'（正则表达式）；得到：{message}"},
    "day14.ffi_refused_untouched": {"en": "rmsnorm_ffi: out after a refused call {where} (a launch before the checks?)",
                                    "zh": "rmsnorm_ffi：被拒绝的调用之后的 out {where}（在检查之前就启动了？）"},
    "day14.ffi_idle": {"en": "rmsnorm_ffi rmsnorm {where}: the stream was idle when it returned: something synchronized",
                       "zh": "rmsnorm_ffi rmsnorm {where}：它返回时流已经空闲：有什么地方做了同步"},
    "day14.compile_error": {"en": "course::rmsnorm under torch.compile(fullgraph=True) {where}: {error}",
                            "zh": "torch.compile(fullgraph=True) 下的 course::rmsnorm {where}：{error}"},
    "day14.peak": {"en": "course::rmsnorm under torch.compile {where}: the work after the op saw another tensor than "
                         "the op returned",
                   "zh": "torch.compile 下的 course::rmsnorm {where}：算子之后的工作看到的张量不是算子返回的那个"},
    "day14.no_ffi": {"en": "rmsnorm_ffi not checked: {why}", "zh": "rmsnorm_ffi 没有检查：{why}"},
    "day14.no_build": {"en": "rmsnorm_ffi.py did not build:\n{log}", "zh": "rmsnorm_ffi.py 构建失败：\n{log}"},
    "day14.needs_tvm": {"en": "needs apache-tvm-ffi (pip install apache-tvm-ffi) to build rmsnorm_ffi.py",
                        "zh": "构建 rmsnorm_ffi.py 需要 apache-tvm-ffi（pip install apache-tvm-ffi）"},
    "day14.needs_nvcc": {"en": "needs nvcc (a CUDA toolkit): tvm_ffi.cpp.load_inline compiles rmsnorm_ffi.py's SOURCE with it",
                         "zh": "需要 nvcc（CUDA 工具包）：tvm_ffi.cpp.load_inline 用它编译 rmsnorm_ffi.py 的 SOURCE"},
    "day14.needs_ninja": {"en": "needs ninja (pip install ninja): tvm_ffi.cpp.load_inline builds with it",
                          "zh": "需要 ninja（pip install ninja）：tvm_ffi.cpp.load_inline 用它构建"},
    "day13.key_format": {"en": "cache_key ({group}): {label}: the key {key} is not a SHA-256 in 64 lowercase hex digits",
                         "zh": "cache_key（{group}）：{label}：键 {key} 不是用 64 个小写十六进制数字写出的 SHA-256"},
    "day13.key_same": {"en": "the same key", "zh": "相同的键"},
    "day13.key_different": {"en": "a different key", "zh": "不同的键"},
    "day13.key_wrong": {"en": "cache_key ({group}): {label}: expected {want}, got {got} ({base}... and {other}...)",
                        "zh": "cache_key（{group}）：{label}：期望{want}，得到的却是{got}（{base}... 和 {other}...）"},
    "day13.first_write": {"en": "first write", "zh": "第一次写入"},
    "day13.second_write": {"en": "second write, {size} bytes", "zh": "第二次写入，{size} 字节"},
    "day13.bytes": {"en": "write_atomic: the file does not hold exactly the bytes written ({which})",
                    "zh": "write_atomic：文件里的内容与写入的字节不完全相同（{which}）"},
    "day13.leftover": {"en": "write_atomic: the folder holds {folder} after two writes: only out.bin may stay (a temporary "
                             "file left behind?)",
                       "zh": "write_atomic：两次写入之后文件夹里有 {folder}：只能留下 out.bin（留下了临时文件？）"},
    "day13.must_fail": {"en": "write_atomic: a write of {size} bytes under a {limit} KiB file-size limit must fail, and "
                              "the OSError reach the caller; it returned normally",
                        "zh": "write_atomic：在 {limit} KiB 的文件大小限制下写入 {size} 字节必须失败，并让 OSError 传到调用者；"
                              "它却正常返回了"},
    "day13.cut": {"en": "write_atomic: after a write that failed part way, out.bin no longer holds its old content (a "
                        "reader now finds a cut file: write somewhere else first)",
                  "zh": "write_atomic：一次中途失败的写入之后，out.bin 不再是原来的内容（读者现在会读到一个残缺的文件："
                        "先写到别处）"},
    "day13.partial_left": {"en": "write_atomic: after a failed write the folder holds {folder}: the partial temporary "
                                 "file must be removed",
                           "zh": "write_atomic：一次失败的写入之后文件夹里有 {folder}：必须删除写了一半的临时文件"},
    "day13.writes": {"en": "write_atomic: {writes} of 24 writes returned", "zh": "write_atomic：24 次写入中只有 {writes} 次返回"},
    "day13.readers": {"en": "write_atomic: a reader running beside 24 writes of {size} bytes found {partial} partial and "
                            "{missing} missing files ({whole} whole): a reader must always find one version, whole",
                      "zh": "write_atomic：与 24 次 {size} 字节的写入同时运行的读者发现了 {partial} 个残缺的文件和 {missing} "
                            "个缺失的文件（{whole} 个完整）：读者必须总能读到某一个完整的版本"},
    "capstone.table_head": {"en": "decode step of one layer: batch {batch}, hidden {hidden}, heads {qo}/{kv}, intermediate "
                                  "{intermediate}, kv_len {kv_len} (paged, {page} tokens a page); every stage goes "
                                  "through binding.py's as_cupy / current_stream / to_caller",
                            "zh": "一层的解码步骤：batch {batch}，hidden {hidden}，头数 {qo}/{kv}，intermediate "
                                  "{intermediate}，kv_len {kv_len}（分页，每页 {page} 个词元）；每一级都经过 binding.py 的 "
                                  "as_cupy / current_stream / to_caller"},
    "capstone.of_copy": {"en": "% of copy", "zh": "占拷贝带宽 %"},
    "capstone.sum": {"en": "sum of the stages", "zh": "各级之和"},
    "capstone.graph": {"en": "course layer, end to end (CUDA graph)", "zh": "课程的层，端到端（CUDA graph）"},
    "capstone.eager": {"en": "course layer, launched from Python", "zh": "课程的层，从 Python 逐个启动"},
    "capstone.torch": {"en": "torch eager layer, end to end", "zh": "torch eager 的层，端到端"},
    "capstone.no_torch": {"en": "torch eager layer: not timed (torch is not installed, or sees no GPU)",
                          "zh": "torch eager 的层：未计时（没有安装 torch，或它看不到 GPU）"},
    "capstone.ratio": {"en": "course layer: {ratio}x the speed of torch eager ({than}); launched from Python {eager}x",
                       "zh": "课程的层：速度是 torch eager 的 {ratio} 倍（{than}）；从 Python 逐个启动时为 {eager} 倍"},
    "capstone.behind": {"en": "{how}: {ours} us against torch eager's {torch} us: slower than torch eager (table above)",
                        "zh": "{how}：{ours} us，torch eager 为 {torch} us：比 torch eager 慢（见上表）"},
    "capstone.faster": {"en": "faster", "zh": "更快"},
    "capstone.slower": {"en": "slower", "zh": "更慢"},
    "stage.attention RMSNorm": {"en": "attention RMSNorm", "zh": "注意力 RMSNorm"},
    "stage.RoPE on q and k": {"en": "RoPE on q and k", "zh": "对 q 和 k 做 RoPE"},
    "stage.append KV": {"en": "append KV", "zh": "追加 KV"},
    "stage.decode attention": {"en": "decode attention", "zh": "解码注意力"},
    "stage.residual add + RMSNorm": {"en": "residual add + RMSNorm", "zh": "残差相加 + RMSNorm"},
    "stage.SiLU and mul": {"en": "SiLU and mul", "zh": "SiLU 与相乘"},
    "stage.residual add": {"en": "residual add", "zh": "残差相加"},
    "stagefrom.day 6 (binding.py)": {"en": "day 6 (binding.py)", "zh": "第 6 天（binding.py）"},
    "stagefrom.day 10": {"en": "day 10", "zh": "第 10 天"},
    "stagefrom.day 13 (JIT)": {"en": "day 13 (JIT)", "zh": "第 13 天（JIT）"},
    "stagefrom.day 14": {"en": "day 14", "zh": "第 14 天"},
    "stagefrom.day 11 (paged)": {"en": "day 11 (paged)", "zh": "第 11 天（分页）"},
    "stagefrom.day 6": {"en": "day 6", "zh": "第 6 天"},
    "stagefrom.day 2": {"en": "day 2", "zh": "第 2 天"},
    "capstone.needs_torch": {"en": "the torch eager reference needs torch and a CUDA GPU",
                             "zh": "torch eager 参考实现需要 torch 和 CUDA GPU"},
    "day14.no_gpu": {"en": "not graded without a CUDA GPU", "zh": "没有 CUDA GPU 时不评分"},
    "day14.not_graded": {"en": "rmsnorm_ffi {where}: its refusals pass; {marker} ({why}): its values, torch's stream and "
                               "torch.compile need a launch, so these points wait for a GPU (python -m grader check day14 "
                               "there)",
                         "zh": "rmsnorm_ffi {where}：拒绝错误参数的检查已通过；{marker}（{why}）：它的数值、torch 的流和 "
                               "torch.compile 都需要启动核函数，所以这些分数要等有 GPU 时再给（在那里运行 "
                               "`python -m grader check day14`）"},
    "lse.empty_row": {"en": "{name}: row {row} has no keys, so its lse2 must be -inf; got {got:.6g}{replay}",
                      "zh": "{name}：第 {row} 行没有任何键，所以它的 lse2 必须是 -inf；得到 {got:.6g}{replay}"},
    "paged.sizes": {"en": "page_size ({page_size}) must be >= 1 and every length ({length}) >= 0",
                    "zh": "page_size（{page_size}）必须 >= 1，且每个长度（{length}）都必须 >= 0"},
    "bound.outside": {"en": "{name}: {count} of {size} elements outside the stated error bound; worst at index {index}: "
                            "{shown}expected {expected:.9g}, got {got:.9g}, error {err:.3g} = {ulps:.1f} ulp (relative "
                            "{rel:.3g}), allowed {allowed:.3g}; largest relative error over all elements {most:.3g} "
                            "(2^{log2:.1f}){replay}",
                      "zh": "{name}：{size} 个元素中有 {count} 个超出给定的误差界；最差在下标 {index}：{shown}期望 {expected:.9g}，"
                            "得到 {got:.9g}，误差 {err:.3g} = {ulps:.1f} ulp（相对误差 {rel:.3g}），允许 {allowed:.3g}；"
                            "所有元素中最大的相对误差 {most:.3g}（2^{log2:.1f}）{replay}"},
    "bound.input": {"en": "input {value:.9g}, ", "zh": "输入 {value:.9g}，"},
    "day13.case.same": {"en": 'the same inputs again', "zh": '再次给出相同的输入'},
    "day13.case.space": {"en": 'one more space in the source', "zh": '源代码里多一个空格'},
    "day13.case.order": {"en": 'the options in another order', "zh": '选项换了顺序'},
    "day13.case.option": {"en": 'one option changed', "zh": '改了一个选项'},
    "day13.case.arch": {"en": 'another arch', "zh": '另一个架构'},
    "day13.case.a_edited": {"en": 'a.cuh (included by the source) edited', "zh": '修改了 a.cuh（被源代码包含）'},
    "day13.case.b_edited": {"en": 'inc2/b.cuh (included by a.cuh, beside it) edited', "zh": '修改了 inc2/b.cuh（被 a.cuh 包含，在它旁边）'},
    "day13.case.c_edited": {"en": 'inc1/c.cuh (two includes down) edited', "zh": '修改了 inc1/c.cuh（往下两层包含）'},
    "day13.case.d_edited": {"en": 'd.cuh (a quoted include of the source) edited', "zh": '修改了 d.cuh（源代码用引号包含的头文件）'},
    "day13.case.a_added": {"en": 'inc1/a.cuh added: an earlier folder now has a.cuh', "zh": '添加了 inc1/a.cuh：更靠前的文件夹现在也有 a.cuh'},
    "day13.case.unrelated": {"en": 'unrelated.cuh (included by nothing) edited', "zh": '修改了 unrelated.cuh（没有谁包含它）'},
    "day13.case.other_b": {"en": 'inc1/b.cuh edited (a.cuh\'s "b.cuh" is the one beside a.cuh, in inc2)', "zh": '修改了 inc1/b.cuh（a.cuh 的 "b.cuh" 是它旁边 inc2 里的那个）'},
    "day13.case.new_header": {"en": 'a new header no one includes', "zh": '一个没有谁包含的新头文件'},
    "day13.case.split": {"en": 'options ("-DA", "-DB") against ("-DA -DB",)', "zh": '选项 ("-DA", "-DB") 对比 ("-DA -DB",)'},
    "day13.case.split_value": {"en": 'options ("-DA=1",) against ("-DA=", "1")', "zh": '选项 ("-DA=1",) 对比 ("-DA=", "1")'},
    "day13.case.empty_option": {"en": 'options () against ("",)', "zh": '选项 () 对比 ("",)'},
    "day13.case.swapped": {"en": 'the include folders swapped (another a.cuh, c.cuh found first)', "zh": '包含文件夹交换了顺序（先找到另一个 a.cuh、c.cuh）'},
    "day13.case.missing": {"en": 'missing.cuh created (the source includes it; it was missing)', "zh": '创建了 missing.cuh（源代码包含它；它原本不存在）'},
    "day13.case.cycle": {"en": 'c.cuh includes a.cuh (a cycle), then c.cuh edited', "zh": 'c.cuh 包含 a.cuh（形成循环），然后修改了 c.cuh'},
    "day13.case.self": {"en": 'b.cuh includes itself, then a.cuh edited', "zh": 'b.cuh 包含它自己，然后修改了 a.cuh'},
    # ---- the course library's refusals (grader/jit: ops' argument checks, templates, the cache) ----
    "ops.numpy": {"en": "{name} is a numpy array, in host memory: pass a cupy array or a CUDA torch tensor "
                        "(cupy.asarray({name}) copies it to the GPU)",
                  "zh": "{name} 是 numpy 数组，在主机内存中：请传入 cupy 数组或 CUDA 上的 torch 张量"
                        "（cupy.asarray({name}) 会把它拷贝到 GPU）"},
    "ops.framework": {"en": "{name}: expected a cupy array or a torch tensor, got {got}",
                      "zh": "{name}：应为 cupy 数组或 torch 张量，得到的是 {got}"},
    "ops.cpu": {"en": "{name} is a CPU tensor: move it to the GPU first ({name}.cuda())",
                "zh": "{name} 是 CPU 上的张量：请先把它移到 GPU 上（{name}.cuda()）"},
    "ops.device": {"en": "{name} is on cuda:{device}, but this call runs on cuda:{runs_on}: put every argument on the "
                         "current device",
                   "zh": "{name} 在 cuda:{device} 上，而这次调用在 cuda:{runs_on} 上运行：请把每个参数都放到当前设备上"},
    "ops.no_bf16": {"en": " (cupy has no bfloat16: pass a torch bfloat16 tensor)",
                    "zh": "（cupy 没有 bfloat16：请传入 torch 的 bfloat16 张量）"},
    "ops.or": {"en": " or ", "zh": " 或 "},
    "ops.dtype": {"en": "{name} has dtype {dtype}; expected {expected}{hint}",
                  "zh": "{name} 的 dtype 是 {dtype}；应为 {expected}{hint}"},
    "ops.mixed": {"en": "{name} has dtype {dtype} but {first} has {first_dtype}: use one dtype",
                  "zh": "{name} 的 dtype 是 {dtype}，而 {first} 的是 {first_dtype}：请统一用一种 dtype"},
    "ops.dims": {"en": "{name} has shape {shape}; expected {count} dims {spec}",
                 "zh": "{name} 的形状是 {shape}；应为 {count} 维 {spec}"},
    "ops.shape": {"en": "{name} has shape {shape}; expected {spec}", "zh": "{name} 的形状是 {shape}；应为 {spec}"},
    "ops.shape_from": {"en": "{name} has shape {shape}; expected {spec} with {dim} = {value} (from {owner})",
                       "zh": "{name} 的形状是 {shape}；应为 {spec}，其中 {dim} = {value}（来自 {owner}）"},
    "ops.contiguous": {"en": "{name} is not contiguous (a transposed or sliced view?): pass {name}.contiguous() (torch) "
                             "or cupy.ascontiguousarray({name})",
                       "zh": "{name} 不是连续的（转置或切片得到的视图？）：请传入 {name}.contiguous()（torch）"
                             "或 cupy.ascontiguousarray({name})"},
    "ops.empty": {"en": "{name} is empty (shape {shape})", "zh": "{name} 是空的（形状 {shape}）"},
    "ops.gate_up": {"en": "x has shape {shape}: the last dimension (gate | up) must be even",
                    "zh": "x 的形状是 {shape}：最后一维（gate | up）必须是偶数"},
    "ops.heads_fit": {"en": "heads={heads} of {head_dim} do not fit rows of {row} elements",
                      "zh": "heads={heads} 个 {head_dim} 维的头放不进 {row} 个元素的行"},
    "ops.head_dim": {"en": "head_dim {d} is not a multiple of 8 (the kernel moves 16-byte vectors)",
                     "zh": "head_dim {d} 不是 8 的倍数（核函数按 16 字节向量搬运）"},
    "ops.qkv_row": {"en": "qkv rows hold {row} elements; with qo_heads={qo_heads}, kv_heads={kv_heads} and head_dim={d} "
                          "they must hold (qo_heads + 2 * kv_heads) * head_dim = {need}",
                    "zh": "qkv 的每行有 {row} 个元素；qo_heads={qo_heads}、kv_heads={kv_heads}、head_dim={d} 时，"
                          "每行必须有 (qo_heads + 2 * kv_heads) * head_dim = {need} 个"},
    "ops.gqa": {"en": "qo_heads = {hq} is not a multiple of kv_heads = {hkv}", "zh": "qo_heads = {hq} 不是 kv_heads = {hkv} 的倍数"},
    "ops.door_missing": {"en": "no compiled door for torch tensors: {package} is not installed (the Python path serves them)",
                         "zh": "没有面向 torch 张量的编译入口：未安装 {package}（由 Python 路径处理）"},
    "ops.door_build": {"en": "no compiled door for torch tensors: it did not build or load ({error}); the Python path serves them",
                       "zh": "没有面向 torch 张量的编译入口：它未能构建或加载（{error}）；由 Python 路径处理"},
    "ops.door_stream": {"en": "no compiled door for torch tensors: TVM-FFI did not hand it torch's current stream "
                              "(the Python path serves them)",
                        "zh": "没有面向 torch 张量的编译入口：TVM-FFI 没有把 torch 的当前流交给它（由 Python 路径处理）"},
    "ops.door_alloc": {"en": "no compiled door for torch tensors: TVM-FFI's allocator gave a {got}, not a CUDA torch tensor "
                             "(the Python path serves them)",
                       "zh": "没有面向 torch 张量的编译入口：TVM-FFI 的分配器给出的是 {got}，不是 CUDA 上的 torch 张量（由 Python 路径处理）"},
    "jit.no_template": {"en": "no template {template} in {folder} (there: {known})",
                        "zh": "{folder} 中没有模板 {template}（那里有：{known}）"},
    "jit.missing": {"en": "missing {names}", "zh": "缺少 {names}"},
    "jit.unknown": {"en": "unknown {names}", "zh": "未知的 {names}"},
    "jit.params": {"en": "template {template}: {problems} (it takes: {takes})",
                   "zh": "模板 {template}：{problems}（它接受：{takes}）"},
    "jit.entry_name": {"en": "cache entry name {name}: use letters, digits and _ only",
                       "zh": "编译缓存条目名 {name}：只能用字母、数字和 _"},
    "jit.key": {"en": "cache key {digest}: expected a SHA-256 hex digest", "zh": "缓存键 {digest}：应为 SHA-256 十六进制摘要"},
    "jit.no_cubin": {"en": "{name}: the compiler returned no cubin", "zh": "{name}：编译器没有返回 cubin"},
    # ---- `python -m grader autotune` (grader/autotune.py) ----
    "autotune.shape": {"en": "shape {text}: expected N (a cube) or MxNxK, e.g. 4096 or 2048x8192x1024",
                       "zh": "形状 {text}：应为 N（立方体）或 MxNxK，例如 4096 或 2048x8192x1024"},
    "autotune.at_least": {"en": "{option} {value}: must be at least 1", "zh": "{option} {value}：至少为 1"},
    "autotune.config": {"en": "configuration", "zh": "配置"},
    "autotune.threads": {"en": "threads", "zh": "线程数"},
    "autotune.smem": {"en": "KiB smem", "zh": "共享内存 KiB"},
    "autotune.no_timing": {"en": "autotune times each configuration on a CUDA GPU; {why}",
                           "zh": "autotune 要在 CUDA GPU 上为每个配置计时；{why}"},
    "autotune.start": {"en": "autotune {source} on {gpu}: {configs} configurations x {shapes} shapes",
                       "zh": "autotune {source}，在 {gpu} 上：{configs} 个配置 x {shapes} 个形状"},
    "autotune.rejected": {"en": "rejected: {why}", "zh": "被淘汰：{why}"},
    "autotune.none_passed": {"en": "no configuration passed its check", "zh": "没有哪个配置通过检查"},
    "autotune.best": {"en": "best per shape on {gpu} (cuBLAS measured in this run):",
                      "zh": "{gpu} 上每个形状最快的配置（cuBLAS 为本次运行实测）："},
    "autotune.shape_col": {"en": "shape", "zh": "形状"},
    "autotune.of_cublas": {"en": "% of cuBLAS", "zh": "占 cuBLAS 的 %"},
    "autotune.saved": {"en": "saved to {path}", "zh": "已保存到 {path}"},
    # ---- the launchers' refusals (grader/launchers): a configuration or arguments that cannot run ----
    "gemm.positive": {"en": "{name} = {value} must be a positive integer", "zh": "{name} = {value} 必须是正整数"},
    "gemm.warp_tile": {"en": "warp tile {bm}/{warps_m} x {bn}/{warps_n} must be multiples of 16 x 16",
                       "zh": "线程束分块 {bm}/{warps_m} x {bn}/{warps_n} 必须是 16 x 16 的倍数"},
    "gemm.bk": {"en": "bk = {bk} must be a multiple of 32 (an even number of the mma's k16 steps)",
                "zh": "bk = {bk} 必须是 32 的倍数（mma 的 k16 步数须为偶数）"},
    "gemm.chunks": {"en": "{name} = {cols} must be 8 times a power of two (16-byte chunks, swizzle)",
                    "zh": "{name} = {cols} 必须是 8 乘以 2 的幂（16 字节一块，交错排布）"},
    "gemm.threads": {"en": "{warps_m} x {warps_n} warps = {threads} threads > {most}",
                     "zh": "{warps_m} x {warps_n} 个线程束 = {threads} 个线程 > {most}"},
    "gemm.split": {"en": "{which} tile {dims} = {chunks} chunks of 16 bytes does not split over {threads} threads",
                   "zh": "{which} 分块 {dims} = {chunks} 个 16 字节的块，不能平均分给 {threads} 个线程"},
    "gemm.spill": {"en": "warp tile {wm}x{wn}: {accumulators} accumulators per thread would spill (max 128)",
                   "zh": "线程束分块 {wm}x{wn}：每个线程 {accumulators} 个累加器，会溢出（最多 128）"},
    "gemm.smem": {"en": "needs {need} bytes of shared memory, the GPU allows {most}",
                  "zh": "需要 {need} 字节共享内存，这块 GPU 只允许 {most}"},
    "gemm.invalid": {"en": "invalid GEMM configuration {config}: {problems}", "zh": "GEMM 配置 {config} 无效：{problems}"},
    "gemm.fields": {"en": "unknown GEMM configuration fields {fields}", "zh": "未知的 GEMM 配置字段 {fields}"},
    "gemm.dims": {"en": "gemm needs 2-D a [M, K] and b [K, N]; got shapes {a} and {b}",
                  "zh": "gemm 需要二维的 a [M, K] 和 b [K, N]；得到的形状是 {a} 和 {b}"},
    "gemm.inner": {"en": "inner dimensions differ: a is {m}x{k}, b is {k2}x{n} (b must be [K, N], row-major)",
                   "zh": "内维不一致：a 是 {m}x{k}，b 是 {k2}x{n}（b 必须是 [K, N]，行主序）"},
    "gemm.dtype": {"en": "{name} has dtype {dtype}; the day 10 GEMM takes float16",
                   "zh": "{name} 的 dtype 是 {dtype}；第 10 天的 GEMM 只接受 float16"},
    "gemm.k": {"en": "K = {k} is not a multiple of 8: rows of A must start 16-byte aligned for cp.async. Pad A and B "
                     "with zeros to K = {padded}.",
               "zh": "K = {k} 不是 8 的倍数：A 的每一行都必须从 16 字节对齐处开始，cp.async 才能拷贝。请把 A 和 B "
                     "用零填充到 K = {padded}。"},
    "decode.kv_dtype": {"en": "KV cache of dtype {dtype}: expected float16, bfloat16 (uint16 bits) or e4m3 (uint8)",
                        "zh": "KV 缓存的 dtype 是 {dtype}：应为 float16、bfloat16（uint16 位模式）或 e4m3（uint8）"},
    "decode.config": {"en": "decode configuration ({kv_dtype}, {head_dim}, {layout}): expected a KV dtype of {dtypes}, "
                            "head_dim of {dims} and a layout of {layouts}",
                      "zh": "解码配置（{kv_dtype}，{head_dim}，{layout}）：KV 的 dtype 应为 {dtypes} 之一，head_dim 为 "
                            "{dims} 之一，布局为 {layouts} 之一"},
    "launch.no_source": {"en": "{module} carries no source text: load it with grader.device.load or nb.load, which keep it",
                         "zh": "{module} 没有带着源代码：请用 grader.device.load 或 nb.load 加载，它们会保留源代码"},
    "prefill.shapes": {"en": "q {q}, k {k}, v {v}: head_dim must be one of {dims}, k and v alike",
                       "zh": "q {q}，k {k}，v {v}：head_dim 必须是 {dims} 之一，k 和 v 的形状相同"},
    "prefill.indptr": {"en": "{name} must be int32, ascending from 0 to {total}; got {dtype} {ptr}",
                       "zh": "{name} 必须是 int32，从 0 递增到 {total}；得到 {dtype} {ptr}"},
    "prefill.batch": {"en": "qo_indptr ({qo}) and kv_indptr ({kv}) must have batch + 1 entries",
                      "zh": "qo_indptr（{qo}）和 kv_indptr（{kv}）都必须有 batch + 1 项"},
    "rope.head_dim": {"en": "head_dim {head_dim}: the family is rendered for {dims}",
                      "zh": "head_dim {head_dim}：这一族核函数只为 {dims} 生成"},
    "rope.vec": {"en": "vec {vec}: expected 1, 2, 4 or 8, dividing head_dim / 2 = {half}",
                 "zh": "vec {vec}：应为 1、2、4 或 8，并整除 head_dim / 2 = {half}"},
    "rope.heads": {"en": "heads_per_block {heads}: a block of {per_head} x {heads} threads must hold 1 to 1024 threads",
                   "zh": "heads_per_block {heads}：{per_head} x {heads} 个线程的线程块必须有 1 到 1024 个线程"},
    "variant.name": {"en": "variant name {ident}: expected an identifier (letters, digits, _)",
                     "zh": "变体名 {ident}：应为标识符（字母、数字、_）"},
    "variant.parameter": {"en": "variant parameter {ident}: expected an identifier (letters, digits, _)",
                          "zh": "变体参数 {ident}：应为标识符（字母、数字、_）"},
    "variant.clash": {"en": "parameter {param} would hide an argument of logits()/visible()",
                      "zh": "参数 {param} 会遮住 logits()/visible() 的一个参数"},
    "variant.no_return": {"en": "variant {name}: the {what} body must return a value, e.g. 'return x;'",
                          "zh": "变体 {name}：{what} 的函数体必须返回一个值，例如 'return x;'"},
    "variant.no_body": {"en": "variant {name}: give a logits body, a mask body or both",
                        "zh": "变体 {name}：请给出 logits 函数体、mask 函数体，或两者都给"},
    "variant.source": {"en": "variant {name}: source must be CUDA text, got {got}",
                       "zh": "变体 {name}：source 必须是 CUDA 源代码文本，得到的是 {got}"},
    "variant.params": {"en": "variant {name} takes {takes}; got {got}", "zh": "变体 {name} 的参数是 {takes}；得到 {got}"},
    "variant.none": {"en": "none", "zh": "无"},
    # ---- the command line's own lines (grader/cli.py) ----
    "cli.folder": {"en": "{arg} is a folder: name a .cu file (or a day, as dayNN)",
                   "zh": "{arg} 是一个文件夹：请给出一个 .cu 文件（或某一天，写成 dayNN）"},
    "cli.not_cu": {"en": "{arg} is not a .cu file (CUDA C sources end in .cu)",
                   "zh": "{arg} 不是 .cu 文件（CUDA C 源文件以 .cu 结尾）"},
    "cli.no_file": {"en": "no such file: {arg}", "zh": "没有这个文件：{arg}"},
    "cli.no_kernel": {"en": "{path} defines no kernel (no __global__ function): nothing to compile or run",
                      "zh": "{path} 没有定义核函数（没有 __global__ 函数）：没有什么可以编译或运行"},
    "cli.none": {"en": "none", "zh": "无"},
    "cli.compile_skip": {"en": "[{i}/{n}] skip  {arch}  {rel}  (needs sm_{needed} or newer)",
                         "zh": "[{i}/{n}] 跳过  {arch}  {rel}  （需要 sm_{needed} 或更新的 GPU）"},
    "cli.compile_ok": {"en": "[{i}/{n}] ok    {arch}  {rel}  ({kernels}; {seconds:.1f} s)",
                       "zh": "[{i}/{n}] 成功  {arch}  {rel}  （{kernels}；{seconds:.1f} 秒）"},
    "cli.compile_failed": {"en": "[{i}/{n}] ERROR {arch}  {rel}\n{log}\n", "zh": "[{i}/{n}] 失败  {arch}  {rel}\n{log}\n"},
    "cli.compiled": {"en": "{ok} of {total} compilations succeeded{skipped}", "zh": "{total} 次编译中 {ok} 次成功{skipped}"},
    "cli.compile_skipped": {"en": "; {count} skipped", "zh": "；{count} 次跳过"},
    "cli.no_exercises": {"en": "{day} has no exercises yet (see course_index.md)", "zh": "{day} 还没有练习（见 course_index.md）"},
    "cli.check_no_gpu": {"en": "{day}: no GPU here ({why}); nothing can run. `python -m grader compile {day}` checks that "
                               "your kernels compile.",
                         "zh": "{day}：这里没有 GPU（{why}）；什么都不能运行。`python -m grader compile {day}` 可以检查"
                               "你的核函数能否编译。"},
    "cli.skipped": {"en": "  skipped: {why}", "zh": "  跳过：{why}"},
    "cli.first_failure": {"en": "\n{exercise} ({status}): {failure}", "zh": "\n{exercise}（{status}）：{failure}"},
    "cli.bench_needs_gpu": {"en": "benchmarks time kernels on a CUDA GPU: {why}", "zh": "基准测试要在 CUDA GPU 上为核函数计时：{why}"},
    "cli.benchmarking": {"en": "{exercise}: benchmarking ...", "zh": "{exercise}：正在做基准测试 ..."},
    "cli.bench_ratio": {"en": "  {label}: {ratio:.1%} of the ceiling at the largest size",
                        "zh": "  {label}：在最大规模上达到上限的 {ratio:.1%}"},
    "cli.plot": {"en": "  plot: {path}", "zh": "  图：{path}"},
    "cli.pictures": {"en": "  pictures: {path}", "zh": "  图：{path}"},
    "cli.not_measured": {"en": "{exercise}: not measured: {error}", "zh": "{exercise}：没有测量：{error}"},
    "cli.emulator_bench": {"en": "{day}: nothing is timed here ({why}). What the emulator measures instead, on the largest "
                                 "case it runs, for your kernel and the solution: 32-byte sectors per warp request "
                                 "(coalescing) and shared-memory wavefronts (bank conflicts), each against the ideal, and "
                                 "the instruction mix.\n",
                           "zh": "{day}：这里不计时（{why}）。模拟器改为在它运行的最大用例上，为你的核函数和参考解答测量："
                                 "每个线程束请求的 32 字节扇区数（合并访存）和共享内存的波前数（存储体冲突），各自与理想值"
                                 "比较，以及指令构成。\n"},
    "cli.choose_one": {"en": "{first} and {second}: choose one", "zh": "{first} 和 {second}：只能选一个"},
    "cli.replace_stub": {"en": "{path} has your edits. Replace it with the new stub? [y/N] ",
                         "zh": "{path} 有你的修改。要用新的桩文件替换它吗？[y/N] "},
    "cli.release_file": {"en": "{path} is a file: the course is built in a folder (a new one, or one that release made)",
                         "zh": "{path} 是一个文件：课程要构建在文件夹里（一个新的，或 release 之前建的）"},
    "cli.release_force": {"en": "{what}; add --force to rebuild it", "zh": "{what}；加上 --force 重新构建"},
    "cli.problem": {"en": "PROBLEM: {problem}", "zh": "问题：{problem}"},
    "cli.released": {"en": "release built in {path} for {assignments}{problems}", "zh": "已在 {path} 为 {assignments} 构建发布版{problems}"},
    "cli.problems": {"en": "; {count} problems", "zh": "；{count} 个问题"},
    # ---- the technique check (grader/technique.py) and grader sass's report (grader/sass.py) ----
    "sep": {"en": "; ", "zh": "；"},
    "list_sep": {"en": ", ", "zh": "、"},
    "technique.float_index": {"en": "{exercise}: {file}: {found}", "zh": "{exercise}：{file}：{found}"},
    "float_index.through_float": {"en": "{name} computes a thread's index through a float and back (exact only up to "
                                        "2^24 = 16,777,216): past that it reads or writes the wrong element; keep "
                                        "indices in integers (int64_t where they can pass 2^31)",
                                  "zh": "{name} 把线程的下标转成浮点数再转回整数（只在 2^24 = 16,777,216 以内精确）："
                                        "超过这个规模就会读写错误的元素；下标请一直用整数（可能超过 2^31 时用 int64_t）"},
    "sass.no_tool": {"en": "{name} not found: `pip install {package}` (or put a CUDA toolkit's bin/ on PATH)",
                     "zh": "找不到 {name}：请 `pip install {package}`（或者把 CUDA 工具包的 bin/ 加进 PATH）"},
    "sass.tool_failed": {"en": "{name} {args} failed: {error}", "zh": "{name} {args} 运行失败：{error}"},
    "sass.map_title": {"en": "{path} ({arch}): PTX instructions starting with {wanted} and the SASS they became, by "
                             "line of {file}",
                       "zh": "{path}（{arch}）：以 {wanted} 开头的 PTX 指令和它们变成的 SASS，按 {file} 的行列出"},
    "sass.map_none": {"en": " no PTX instruction starts with {wanted}", "zh": " 没有以 {wanted} 开头的 PTX 指令"},
    "emu.no_launch": {"en": "no kernel has run on the emulator yet", "zh": "模拟器上还没有运行过任何核函数"},
    "emu.stats_off": {"en": "statistics were off for that launch (COURSE_EMULATOR_STATS=0)",
                      "zh": "那次启动关闭了统计（COURSE_EMULATOR_STATS=0）"},
    "emu.inlined": {"en": "{at} (in {header})", "zh": "{at}（在 {header} 中）"},
    "sass.map_through": {"en": "   [through {calls}]", "zh": "   [经由 {calls}]"},
    "sass.map_no_sass": {"en": "    SASS (none: optimised away, or merged)", "zh": "    SASS（无：被优化掉了，或与别的指令合并）"},
    "sass.map_rest": {"en": "    and {total} integer/address instructions of the same call: ",
                      "zh": "    以及同一次调用的 {total} 条整数/地址指令："},
    "sass.map_rest_one": {"en": "    and {total} integer/address instruction of the same call: ",
                          "zh": "    以及同一次调用的 {total} 条整数/地址指令："},
    "stubs.up_to_date": {"en": "up to date", "zh": "已是最新"},
    "stubs.created": {"en": "created", "zh": "已创建"},
    "stubs.regenerated": {"en": "regenerated", "zh": "已重新生成"},
    "stubs.kept": {"en": "kept your edits; new stub written to {new}", "zh": "保留了你的修改；新的桩文件写在 {new}"},
    "notebooks.kept": {"en": "kept your edits; new notebook written to {new}",
                       "zh": "保留了你的修改；新的 notebook 写在 {new}"},
    "technique.has_no": {"en": "{file} has no {what}",
                         "zh": "{file} 里没有 {what}"},
    "technique.uses": {"en": "{file} uses {what}, which is not allowed here",
                       "zh": "{file} 用了 {what}，这里不允许"},
    "technique.no_kernel": {"en": "no kernel {kernels} in {file}", "zh": "{file} 里没有核函数 {kernels}"},
    "technique.its_kernels": {"en": "its kernels", "zh": "它的各个核函数"},
    "technique.absent": {"en": "no {missing} in the SASS of {kernels}", "zh": "{kernels} 的 SASS 里没有 {missing}"},
    "technique.named": {"en": "{pattern} ({name})", "zh": "{pattern}（{name}）"},
    "technique.no_join": {"en": ", no ", "zh": "、"},
    "technique.graded": {"en": ": this exercise is graded on {why}", "zh": "：这个练习考查的是 {why}"},
    "technique.forbidden": {"en": "{hits} in the SASS of {kernels}: {what} is not allowed here; this exercise is graded "
                                  "on {why}",
                            "zh": "{kernels} 的 SASS 里有 {hits}：这里不允许 {what}；这个练习考查的是 {why}"},
    "technique.spills": {"en": "{kernel} spills to local memory ({stores} B stores, {loads} B loads, {local} B local): "
                               "{why} keeps its data in registers",
                         "zh": "{kernel} 溢出到了本地内存（写 {stores} B，读 {loads} B，本地 {local} B）：{why} "
                               "要把数据留在寄存器里"},
    "technique.serialized": {"en": "ptxas serialized the wgmma.mma_async of {kernel} ({code}: due to {cause}), so each "
                                   "waits for the one before it and nothing overlaps them",
                             "zh": "ptxas 把 {kernel} 的 wgmma.mma_async 串行化了（{code}：原因是 {cause}），每条都要等前一条"
                                   "做完，没有任何工作能与它们重叠"},
    "wgmma_cause.call": {"en": "wgmma pipeline crossing function boundary at a function call",
                         "zh": "wgmma 流水线在一次函数调用处跨过了函数边界"},
    "wgmma_cause.registers": {"en": "insufficient register resources for the wgmma pipeline",
                              "zh": "wgmma 流水线可用的寄存器不够"},
    "wgmma_cause.accumulators": {"en": "non wgmma instructions defining accumulator registers of a wgmma between start "
                                       "and end of the pipeline stage",
                                 "zh": "在流水线一级的开始与结束之间，有非 wgmma 指令写了某条 wgmma 的累加器寄存器"},
    "wgmma_cause.wait": {"en": "an instruction using a wgmma's accumulator registers before wgmma.wait_group, so "
                               "ptxas injected a wait (warpgroup.wait) for it",
                         "zh": "有指令在 wgmma.wait_group 之前用到了某条 wgmma 的累加器寄存器，ptxas 因此为它插入了等待"
                               "（warpgroup.wait）"},
    "technique.no_sass": {"en": "{exercise}: cannot read the SASS to check the technique: {error}",
                          "zh": "{exercise}：读不到 SASS，无法检查技术要点：{error}"},
    "technique.missing": {"en": "{exercise}: the technique of the day is missing from {file}: {found}",
                          "zh": "{exercise}：{file} 缺少当天的技术要点：{found}"},
    "sassname.HMMA": {"en": "mma.sync on the tensor cores", "zh": "张量核心上的 mma.sync"},
    "sassname.LDGSTS": {"en": "cp.async", "zh": "异步拷贝 cp.async"},
    "sassname.LDSM": {"en": "ldmatrix", "zh": "ldmatrix 指令"},
    "sassname.SHFL.BFLY": {"en": "butterfly shuffles, shfl.sync.bfly", "zh": "蝶形洗牌，shfl.sync.bfly"},
    "sassname.SHFL": {"en": "warp shuffles", "zh": "线程束洗牌"},
    "sassname.MUFU.TANH": {"en": "tanh.approx on the SFU", "zh": "SFU 上的 tanh.approx"},
    "sassname.MUFU.EX2": {"en": "ex2.approx on the SFU", "zh": "SFU 上的 ex2.approx"},
    "sassname.MUFU.LG2": {"en": "lg2.approx on the SFU", "zh": "SFU 上的 lg2.approx"},
    "sassname.MUFU": {"en": "the SFU's approximate math", "zh": "SFU 的近似数学函数"},
    "sassname.LDG.E.128": {"en": "16-byte global loads", "zh": "16 字节的全局内存读取"},
    "sassname.STG.E.128": {"en": "16-byte global stores", "zh": "16 字节的全局内存写入"},
    "sassname.ATOMS": {"en": "shared-memory atomics", "zh": "共享内存原子操作"},
    "sassname.ATOM": {"en": "global atomics", "zh": "全局内存原子操作"},
    "sassname.RED": {"en": "global atomics", "zh": "全局内存原子操作"},
    "sassname.LDL": {"en": "local-memory loads", "zh": "本地内存读取"},
    "sassname.STL": {"en": "local-memory stores", "zh": "本地内存写入"},
    "sassname.BAR": {"en": "__syncthreads", "zh": "屏障 __syncthreads"},
    "sass.no_source": {"en": "no kernel source {path}", "zh": "没有核函数源文件 {path}"},
    "sass.no_kernel": {"en": "no kernel {kernel!r} in {path}; its functions: {functions}",
                       "zh": "{path} 里没有核函数 {kernel!r}；它的函数有：{functions}"},
    "sass.no_functions": {"en": "(none)", "zh": "（无）"},
    "sass.total": {"en": "{count:8d}  total ({opcodes} opcodes)", "zh": "{count:8d}  合计（{opcodes} 种操作码）"},
    "sass.only_in": {"en": "only in {where}: {names}", "zh": "只在 {where} 中：{names}"},
    "sass.registers": {"en": "{name}: registers {a} -> {b}", "zh": "{name}：寄存器 {a} -> {b}"},
    "sass.opcode": {"en": "opcode", "zh": "操作码"},
    "sass.total_row": {"en": "total", "zh": "合计"},
    "sass.res.registers": {"en": "registers", "zh": "寄存器"},
    "sass.res.stack": {"en": "stack", "zh": "栈"},
    "sass.res.spill_stores": {"en": "spill stores", "zh": "溢出写"},
    "sass.res.spill_loads": {"en": "spill loads", "zh": "溢出读"},
    "sass.res.shared": {"en": "shared", "zh": "共享内存"},
    "sass.res.local": {"en": "local", "zh": "本地内存"},
    # ---- the emulator's fault texts (grader/emulator): what a wrong kernel did, where, by which thread ----
    "emu.who": {"en": "block {block} thread {thread}", "zh": "线程块 {block} 线程 {thread}"},
    "emu.block": {"en": "block {block}", "zh": "线程块 {block}"},
    "emu.at": {"en": " at {loc}", "zh": "（{loc}）"},
    "emu.misaligned": {"en": "misaligned address: {where} by {who} accesses {size} bytes at 0x{address:x}, which is not a "
                             "multiple of {size}",
                       "zh": "地址未对齐：{who} 执行的 {where} 在 0x{address:x} 访问 {size} 字节，而这个地址不是 {size} 的倍数"},
    "emu.write": {"en": "write", "zh": "写入"},
    "emu.read": {"en": "read", "zh": "读取"},
    "emu.shared_oob": {"en": "out-of-bounds shared-memory {what}: {where} by {who} accesses {size} bytes at shared offset "
                             "{offset}, but the block has {total} bytes of shared memory ({static} static + {dynamic} "
                             "dynamic)",
                       "zh": "共享内存{what}越界：{who} 执行的 {where} 在共享内存偏移 {offset} 处访问 {size} 字节，但这个线程块"
                             "只有 {total} 字节的共享内存（静态 {static} + 动态 {dynamic}）"},
    "emu.local_oob": {"en": "out-of-bounds local-memory access: {where} by {who} at local offset {offset} of {total} bytes",
                      "zh": "本地内存访问越界：{who} 执行的 {where} 访问本地内存偏移 {offset}，而本地内存只有 {total} 字节"},
    "emu.past_allocation": {"en": ": {past} bytes past the end of a {nbytes}-byte allocation (element {index} of {count})",
                            "zh": "：超出一块 {nbytes} 字节的分配末尾 {past} 字节（共 {count} 个元素中的第 {index} 个）"},
    "emu.past_array": {"en": ": element {index} of an array of {count} {elements} ({elem} bytes each), {past} past its last "
                             "(past the {guard} {guard_elements} the grader adds after it to catch such writes)",
                       "zh": "：数组（{count} 个{elements}，每个 {elem} 字节）的第 {index} 个元素，超出最后一个元素 {past} 个"
                             "（落在评分程序为捕捉这类写入而在数组后面追加的 {guard} 个{guard_elements}里）"},
    "emu.element": {"en": "element", "zh": "元素"},
    "emu.elements": {"en": "elements", "zh": "元素"},
    "emu.before_start": {"en": ": {gap} bytes before the start of a {nbytes}-byte allocation",
                         "zh": "：在一块 {nbytes} 字节的分配开头之前 {gap} 字节"},
    "emu.null": {"en": " (a null or tiny pointer: an argument not passed as a device array?)",
                 "zh": "（空指针或极小的指针：某个参数没有作为设备数组传入？）"},
    "emu.global_oob": {"en": "out-of-bounds global {what} of {size} bytes at 0x{address:x}{near}, by {who}, {where}; {count}",
                       "zh": "全局内存{what}越界：在 0x{address:x} 处 {size} 字节{near}，由 {who} 执行 {where}；{count}"},
    "emu.oob_threads": {"en": "{count} threads of this instruction were out of bounds", "zh": "这条指令有 {count} 个线程越界"},
    "emu.oob_one": {"en": "the only thread of this instruction out of bounds", "zh": "这条指令只有这一个线程越界"},
    "emu.cp_async_oob": {"en": "out-of-bounds cp.async source: {where}", "zh": "cp.async 的源地址越界：{where}"},
    "emu.trap": {"en": "{opcode} executed (an assert failed or the kernel trapped) by {who} at {loc}",
                 "zh": "{who} 在 {loc} 执行了 {opcode}（某个 assert 失败，或核函数触发了 trap）"},
    "emu.unsupported": {"en": "not supported by the emulator: {why}, in `{text}` at {loc}. Run this kernel on a GPU, or see "
                              "grader/emulator/README.md for what is supported.",
                        "zh": "模拟器不支持：{why}，在 {loc} 的 `{text}` 中。请在 GPU 上运行这个核函数，或查看 "
                              "grader/emulator/README.md 了解模拟器支持哪些功能。"},
    # ---- what the emulator does not support (Unsupported: the {why} of emu.unsupported) and its PTX reader ----
    "emu.unsup.only": {"en": "{opcode} (only {only})", "zh": "{opcode}（只支持 {only}）"},
    "emu.unsup.call": {"en": "call to {func} (a function NVRTC did not inline; mark it __forceinline__)",
                       "zh": "调用了 {func}（NVRTC 没有内联的函数；请把它标为 __forceinline__）"},
    "emu.unsup.carry": {"en": "{opcode} (carry chains)", "zh": "{opcode}（进位链）"},
    "emu.unsup.mad": {"en": "{opcode} (mad without rounding)", "zh": "{opcode}（没有指定舍入方式的 mad）"},
    "emu.unsup.directed": {"en": "{opcode} (directed rounding)", "zh": "{opcode}（定向舍入）"},
    "emu.unsup.mma": {"en": "{opcode} (f16/bf16 with k8/k16, or e4m3/e5m2 with k32)",
                      "zh": "{opcode}（只支持 k8/k16 的 f16/bf16，或 k32 的 e4m3/e5m2）"},
    "emu.unsup.f32_accumulate": {"en": "{opcode} (only f32 accumulate)", "zh": "{opcode}（只支持 f32 累加）"},
    "emu.unsup.wgmma_sync": {"en": "{opcode} (wgmma needs .sync.aligned)", "zh": "{opcode}（wgmma 需要 .sync.aligned）"},
    "emu.unsup.wgmma_shape": {"en": "{opcode} (m64nNk16 with f32 += f16/bf16, m64nNk32 with f32 += e4m3/e5m2 only)",
                              "zh": "{opcode}（只支持 f32 += f16/bf16 的 m64nNk16 和 f32 += e4m3/e5m2 的 m64nNk32）"},
    "emu.unsup.accumulators": {"en": "{opcode}: {count} accumulators, expected {expected}",
                               "zh": "{opcode}：{count} 个累加器，应为 {expected} 个"},
    "emu.unsup.a_in_registers": {"en": "{opcode} with A in registers", "zh": "A 在寄存器中的 {opcode}"},
    "emu.unsup.comparison": {"en": "comparison .{cmp}", "zh": "比较方式 .{cmp}"},
    "emu.unsup.instruction": {"en": "instruction {opcode}", "zh": "指令 {opcode}"},
    "emu.unsup.f64_rounding": {"en": "f64 rounding mode .{mode}", "zh": "f64 的舍入方式 .{mode}"},
    "emu.unsup.fp8_rounding": {"en": "{opcode} (PTX has only .rn.satfinite for FP8)",
                               "zh": "{opcode}（PTX 对 FP8 只有 .rn.satfinite）"},
    "emu.unsup.beyond_2_53": {"en": "{opcode} of an integer beyond 2^53", "zh": "对超过 2^53 的整数做 {opcode}"},
    "emu.unsup.space": {"en": "state space .{space}", "zh": "状态空间 .{space}"},
    "emu.unsup.st_param": {"en": "st.param to a kernel parameter", "zh": "用 st.param 写核函数参数"},
    "emu.unsup.atom": {"en": "atom .{op}", "zh": "原子操作 atom .{op}"},
    "emu.unsup.vector_atomics": {"en": "{opcode} (vector atomics)", "zh": "{opcode}（向量原子操作）"},
    "emu.unsup.special": {"en": "special register %{name}", "zh": "特殊寄存器 %{name}"},
    "emu.unsup.register_as": {"en": "register of {held} read as {read}", "zh": "{held} 寄存器按 {read} 读取"},
    "emu.unsup.read_as": {"en": "{text} ({held}) read as {read}", "zh": "{text}（{held}）按 {read} 读取"},
    "emu.unsup.operand": {"en": "operand {text!r}", "zh": "操作数 {text!r}"},
    "emu.unsup.destination": {"en": "destination {text!r}", "zh": "目标操作数 {text!r}"},
    "emu.unsup.address": {"en": "address {text!r}", "zh": "地址 {text!r}"},
    "emu.unsup.symbol": {"en": "unknown symbol {base!r} in {text!r}", "zh": "{text!r} 中的未知符号 {base!r}"},
    "emu.unsup.recursive": {"en": "recursive call to {target}", "zh": "对 {target} 的递归调用"},
    "emu.unsup.predicated": {"en": "predicated call to {target}", "zh": "对 {target} 的带谓词调用"},
    "emu.unsup.register": {"en": "unknown register {name}", "zh": "未知寄存器 {name}"},
    "emu.unsup.label": {"en": "unknown label {name}", "zh": "未知标签 {name}"},
    "ptx.declaration": {"en": "cannot read the declaration {stmt!r}", "zh": "无法解析声明 {stmt!r}"},
    "ptx.open_outside": {"en": "'{{' outside a function", "zh": "函数之外出现了 '{{'"},
    "ptx.unbalanced": {"en": "unbalanced '}}'", "zh": "多余的 '}}'（没有与之配对的 '{{'）"},
    "ptx.unreadable": {"en": "cannot read {stmt!r}", "zh": "无法解析 {stmt!r}"},
    "ptx.not_closed": {"en": "function {name} is not closed", "zh": "函数 {name} 没有闭合"},
    "ptx.unknown_label": {"en": "{name}: branch to unknown label {target!r} ({text})",
                          "zh": "{name}：跳转到未知标签 {target!r}（{text}）"},
    "ptx.header": {"en": "cannot read the function header {head!r}", "zh": "无法解析函数头 {head!r}"},
    "emu.block_limit": {"en": "launching {kernel} with block={block}: {threads} threads exceed the kernel's limit of {limit} "
                              "(invalid launch on a GPU)",
                        "zh": "以线程块 block={block} 启动 {kernel}：{threads} 个线程超过了这个核函数的上限 {limit}（在 GPU 上是无效的启动）"},
    "emu.grid_limit": {"en": "launching {kernel} with grid={grid}: too many blocks", "zh": "以网格 grid={grid} 启动 {kernel}：线程块太多"},
    "emu.smem_limit": {"en": "launching {kernel}: {smem} bytes of shared memory ({static} static + {dynamic} dynamic) exceed "
                             "the {limit} allowed (set kernel.max_dynamic_shared_size_bytes to opt in, up to {most})",
                       "zh": "启动 {kernel}：{smem} 字节的共享内存（静态 {static} + 动态 {dynamic}）超过了允许的 {limit}"
                             "（设置核函数的 kernel.max_dynamic_shared_size_bytes 可以申请更多，最多 {most}）"},
    "emu.exited": {"en": "; {count} of its threads exited before it (the first, {thread}, at {where})",
                   "zh": "；它有 {count} 个线程在此之前已经退出（第一个是 {thread}，在 {where}）"},
    "emu.other_barrier": {"en": "; others wait at a different barrier, {where}", "zh": "；其他线程在另一个屏障处等待：{where}"},
    "emu.partial_barrier": {"en": "barrier reached by only part of a block: {where} was reached by {arrived} of the {total} "
                                  "threads of {block}{more}. Every thread of the block must reach the same __syncthreads() "
                                  "(a barrier inside a branch that not all threads take, or after an early return, "
                                  "deadlocks or misbehaves on a GPU).",
                            "zh": "只有线程块的一部分线程到达了屏障：{block} 的 {total} 个线程中只有 {arrived} 个到达了 {where}"
                                  "{more}。线程块的每个线程都必须到达同一个 __syncthreads()（放在并非所有线程都会进入的"
                                  "分支里、或在提前 return 之后的屏障，在 GPU 上会死锁或出错）。"},
    "emu.warp_sync": {"en": "warp-synchronous instruction {where} waits for lanes that never arrive ({who} and {more} more "
                            "threads wait): its member mask names lanes that exited or took another path. Pass a mask of "
                            "exactly the lanes that execute it (e.g. __activemask() or a ballot).",
                      "zh": "线程束同步指令 {where} 在等待永远不会到达的通道（{who} 和另外 {more} 个线程在等待）：它的成员"
                            "掩码包含了已经退出或走了另一条路径的通道。请传入恰好是执行它的那些通道的掩码（例如 "
                            "__activemask() 或一次 ballot 的结果）。"},
    "emu.by": {"en": "{where} by {who}", "zh": "{who} 执行的 {where}"},
    "emu.aligned": {"en": "{where} is a warp-collective .aligned instruction: all 32 lanes of the warp must execute it together",
                    "zh": "{where} 是线程束集体的 .aligned 指令：线程束的全部 32 个通道必须一起执行它"},
    "emu.shuffle_lane": {"en": "{text} at {loc}: {who} reads lane {lane}, which does not execute this shuffle (it exited, "
                               "took another path, or lies outside the block): the result would be undefined on a GPU",
                         "zh": "{loc} 的 {text}：{who} 读取通道 {lane}，而该通道没有执行这次洗牌（它已退出、走了另一条路径，"
                               "或在线程块之外）：在 GPU 上结果是未定义的"},
    "emu.unseen": {"en": "read before the mbarrier wait: {reader} reads shared offset {offset}, written by the bulk copy "
                         "{copy} (issued by {issuer}), but {who} never waited for phase {phase} of the mbarrier that copy "
                         "completes on (shared offset {barrier}, initialised by {init}): every thread that reads the "
                         "bytes must first wait on it (mbarrier.try_wait.parity with parity {parity}, e.g. "
                         "mbarrier_wait(&bar, {parity})), or pass a __syncthreads() / bar.sync after a thread that waited",
                   "zh": "在 mbarrier 等待之前就读取了：{reader} 读取共享内存偏移 {offset}，它由批量拷贝 {copy}（由 {issuer} "
                         "发起）写入，但 {who} 从未等待这次拷贝完成所用的 mbarrier（共享内存偏移 {barrier}，由 {init} "
                         "初始化）的第 {phase} 阶段：读取这些字节的每个线程都必须先等待它（mbarrier.try_wait.parity，"
                         "parity 为 {parity}，例如 mbarrier_wait(&bar, {parity})），或者在某个等待过的线程之后经过一个 "
                         "__syncthreads() / bar.sync 屏障"},
    "emu.cp_async_wait": {"en": "read before cp.async.wait_group: {where} by {who} reads shared offset {offset}, which the "
                                "cp.async {copy} has not yet copied: its thread must wait for it (cp.async.wait_group / "
                                "wait_all) before the bytes are read, and other threads need a __syncthreads() after "
                                "that wait",
                          "zh": "在 cp.async.wait_group 之前就读取了：{who} 执行的 {where} 读取共享内存偏移 {offset}，而 cp.async "
                                "{copy} 还没有把它拷贝过来：发起拷贝的线程必须先等待它（cp.async.wait_group / wait_all）"
                                "再读取这些字节，其他线程还需要在那次等待之后经过一个 __syncthreads() 屏障"},
    "emu.unfenced": {"en": "a generic-proxy store read by the async proxy without fence.proxy.async: {reader} reads shared "
                           "offset {offset}, which {who} wrote with {writer} and did not follow with fence.proxy.async: "
                           "the writing threads must execute `fence.proxy.async.shared::cta` (fence_proxy_async()) after "
                           "their stores, then a barrier the issuing thread also passes",
                     "zh": "异步代理读取了一个没有 fence.proxy.async 的通用代理写入：{reader} 读取共享内存偏移 {offset}，它由 "
                           "{who} 用 {writer} 写入，之后没有 fence.proxy.async：写入的线程必须在写入之后执行 "
                           "`fence.proxy.async.shared::cta`（fence_proxy_async()），再经过一个发起线程也会经过的屏障"},
    "emu.no_barrier": {"en": "shared memory read by the async proxy with no barrier after the stores: {reader} reads shared "
                             "offset {offset}, written by another warp with {writer} since the last barrier: after "
                             "fence.proxy.async, a __syncthreads() / bar.sync must order the stores before the "
                             "instruction that reads them",
                       "zh": "异步代理读取的共享内存在写入之后没有屏障：{reader} 读取共享内存偏移 {offset}，它在上一个屏障之后由"
                             "另一个线程束用 {writer} 写入：在 fence.proxy.async 之后，必须用 __syncthreads() / bar.sync "
                             "屏障把这些写入排在读取它们的指令之前"},
    "emu.reader": {"en": "{where} by {who}{warpgroup}, {what},", "zh": "{who}{warpgroup}执行的 {where}（{what}）"},
    "emu.its_warpgroup": {"en": " (and its warpgroup)", "zh": "（及其线程束组）"},
    "emu.a_store": {"en": "a store", "zh": "一次写入"},
    "emu.pending": {"en": "a stage overwritten while a wgmma still reads it: {writer} writes shared offset {offset}, which "
                          "{reader} of warpgroup {warpgroup} (its group {group}) reads until wgmma.wait_group retires it, "
                          "and this thread has not learned that it did: release a stage (e.g. mbarrier.arrive on its "
                          "'empty' barrier) only after the wgmma.wait_group that retires the wgmma reading it",
                    "zh": "一个级在 wgmma 仍在读取时被覆盖了：{writer} 写入共享内存偏移 {offset}，而线程束组 {warpgroup} 的 "
                          "{reader}（它的第 {group} 组）会一直读取它，直到 wgmma.wait_group 使其完成，这个线程还不知道它已"
                          "完成：只有在使读取它的 wgmma 完成的 wgmma.wait_group 之后，才能释放一个级（例如在它的 'empty' "
                          "屏障上 mbarrier.arrive）"},
    "emu.bulk_copy_by": {"en": "the bulk copy {where} by {who}", "zh": "{who} 发起的批量拷贝 {where}"},
    "emu.tma_store_source": {"en": "shared memory written while a TMA store still reads it: {where} by {who} writes shared "
                                   "offset {offset}, the source of the bulk store at {store} by {storer}, whose group that "
                                   "thread has not yet waited for (cp.async.bulk.commit_group, then "
                                   "cp.async.bulk.wait_group.read before the buffer is written again)",
                             "zh": "TMA 存储仍在读取时共享内存被写入了：{who} 执行的 {where} 写入共享内存偏移 {offset}，它是 {storer} "
                                   "在 {store} 发起的批量存储的源，而那个线程还没有等待它所在的组（先 "
                                   "cp.async.bulk.commit_group，再在缓冲区被再次写入之前 cp.async.bulk.wait_group.read）"},
    "emu.tx_missing": {"en": "mbarrier transaction bytes never arrived: the mbarrier at shared offset {offset} of {block} "
                             "(initialised by {init}) expected {expected} bytes in phase {phase} ({where}), got {got} from "
                             "bulk copies, when the kernel ended: the expect_tx bytes must equal the bytes of the copies "
                             "that complete on it, and a thread must wait for the phase before the bytes are used",
                       "zh": "mbarrier 的事务字节始终没有到达：{block} 在共享内存偏移 {offset} 处的 mbarrier（由 {init} 初始化）"
                             "在第 {phase} 阶段期望 {expected} 字节（{where}），到核函数结束时只从批量拷贝得到 {got} 字节："
                             "expect_tx 的字节数必须等于在它上面完成的拷贝的字节数，而且线程必须先等待这个阶段再使用这些字节"},
    "emu.no_mbarrier": {"en": "{where} by {who} uses the mbarrier at shared offset {offset}, which was not initialised "
                              "(mbarrier.init) or was invalidated",
                        "zh": "{who} 执行的 {where} 使用了共享内存偏移 {offset} 处的 mbarrier，而它没有初始化（mbarrier.init）"
                              "或已经失效"},
    "emu.mbarrier_count": {"en": "{where}: mbarrier count {count} is not in 1..2^20-1",
                           "zh": "{where}：mbarrier 的计数 {count} 不在 1..2^20-1 之内"},
    "emu.arrivals": {"en": "{where} by {who}: {arrivals} arrivals on an mbarrier with {pending} pending in this phase "
                           "(count {count})",
                     "zh": "{who} 执行的 {where}：在这个阶段只剩 {pending} 次待到达（计数 {count}）的 mbarrier 上到达了 {arrivals} 次"},
    "emu.setmaxnreg": {"en": "`{text}` at {loc}: the register count must be a multiple of 8 in 24..256, not {count}",
                       "zh": "{loc} 的 `{text}`：寄存器数必须是 24..256 之间 8 的倍数，而不是 {count}"},
    "emu.bulk_size": {"en": "{where}: size {size} and source address must be multiples of 16",
                      "zh": "{where}：大小 {size} 和源地址都必须是 16 的倍数"},
    "emu.bulk_oob": {"en": "out-of-bounds cp.async.bulk source: {where} reads {size} bytes",
                     "zh": "cp.async.bulk 的源越界：{where} 读取 {size} 字节"},
    "emu.tensor_map": {"en": "{where}: {error}", "zh": "{where}：{error}"},
    "emu.map_rank": {"en": "{where} is a {rank}-D copy, but its tensor map is {map_rank}-D",
                     "zh": "{where} 是 {rank} 维的拷贝，但它的张量映射 (tensor map) 是 {map_rank} 维的"},
    "emu.tma_align": {"en": "{where}: the shared-memory address must be 128-byte aligned (offset {offset})",
                      "zh": "{where}：共享内存地址必须 128 字节对齐（偏移 {offset}）"},
    "emu.map_outside": {"en": "{where}: the tensor map's tensor lies outside its allocation",
                        "zh": "{where}：张量映射 (tensor map) 描述的张量超出了它的分配"},
    "emu.reads": {"en": "reads", "zh": "读取"},
    "emu.writes": {"en": "writes", "zh": "写入"},
    "emu.in_flight": {"en": "{by} {name}, an accumulator of {issuer} still in flight: wait for it first (wgmma.wait_group, "
                            "i.e. warpgroup_wait<N>())",
                      "zh": "{by} {name}，而它是 {issuer} 仍在途的累加器：请先等待它（wgmma.wait_group，即 warpgroup_wait<N>()）"},
    "emu.in_flight_by": {"en": "{where} {what}", "zh": "{where} {what}"},
    "emu.warpgroup": {"en": "{where} is a warpgroup instruction: all 128 threads of 4 consecutive warps must execute it "
                            "together, but {who}'s warpgroup has threads that exited or do not exist",
                      "zh": "{where} 是线程束组指令：连续 4 个线程束的全部 128 个线程必须一起执行它，但 {who} 所在的线程束组"
                            "有线程已经退出或不存在"},
    "emu.overwrote": {"en": "an instruction overwrote a wgmma accumulator before wgmma.wait_group retired it ({what})",
                      "zh": "有指令在 wgmma.wait_group 使 wgmma 完成之前覆盖了它的累加器 (accumulator)（{what}）"},
    "emu.descriptor_uniform": {"en": "{where}: the {what} descriptor differs between threads of a warpgroup: it must be "
                                     "warpgroup-uniform",
                               "zh": "{where}：{what} 描述符在线程束组的各线程之间不一致：它必须在整个线程束组中相同"},
    "emu.descriptor_base": {"en": "{where}: {what} descriptor has base offset {base}: not emulated (align swizzled tiles to "
                                  "the swizzle pattern, 1024 bytes for 128B)",
                            "zh": "{where}：{what} 描述符的基址偏移为 {base}：模拟器不支持（请把交错排布的分块对齐到交错排布的"
                                  "周期，128B 时为 1024 字节）"},
    "emu.descriptor_outside": {"en": "{where}: the {what} descriptor (start {start}, LBO {lbo}, SBO {sbo}, swizzle {swizzle}) "
                                     "reaches shared bytes {low}..{high}, outside the block's {total} bytes",
                               "zh": "{where}：{what} 描述符（start {start}，LBO {lbo}，SBO {sbo}，交错排布 {swizzle}）访问到"
                                     "共享内存字节 {low}..{high}，超出了线程块的 {total} 字节"},
    "emu.a_after_fence": {"en": "{where}: its A register {register} was written after the last wgmma.fence "
                                "(warpgroup_arrive()) of {who}: registers an mma_async reads must be written before the "
                                "wgmma.fence that precedes it",
                          "zh": "{where}：它的 A 寄存器 {register} 在 {who} 的最后一次 wgmma.fence（warpgroup_arrive()）之后"
                                "被写入：mma_async 读取的寄存器必须在它前面的 wgmma.fence 之前写好"},
    "emu.d_unfenced": {"en": "{where}: its accumulator {register} was written by other instructions with no wgmma.fence "
                             "(warpgroup_arrive()) before this mma_async, by {who}",
                       "zh": "{where}：它的累加器 {register} 被 {who} 用其他指令写入，而在这次 mma_async 之前没有 wgmma.fence"
                             "（warpgroup_arrive()）"},
    "emu.race": {"en": "shared-memory race: {where} by {who} {kind} shared offset {offset}, which another warp of its "
                       "block accessed since the last __syncthreads() ({other}); put a barrier between them",
                 "zh": "共享内存竞争：{who} 执行的 {where} {kind}共享内存偏移 {offset}，而它所在线程块的另一个线程束在上一个 "
                       "__syncthreads() 之后访问过这个位置（{other}）；请在两者之间加一个屏障"},
    "emu.race_writes": {"en": "writes", "zh": "写入"},
    "emu.race_reads": {"en": "reads", "zh": "读取"},
    "emu.written_by": {"en": "written by {where}", "zh": "由 {where} 写入"},
    "emu.read_by_other": {"en": "read by another warp", "zh": "被另一个线程束读取"},
    "emu.more_races": {"en": " ({count} more races in this launch)", "zh": "（这次启动中还有 {count} 处竞争）"},
    "emu.race_in": {"en": "{kernel}: {race}{more}", "zh": "{kernel}：{race}{more}"},
    "emu.cp_async_dropped": {"en": "cp.async copies never waited for: {where} issued copies that no cp.async.wait_group / "
                                   "wait_all retired before the thread exited; they were dropped",
                             "zh": "cp.async 拷贝从未被等待：{where} 发起的拷贝在线程退出之前没有被任何 cp.async.wait_group / "
                                   "wait_all 完成；它们被丢弃了"},
    # ---- the names a failed check starts with (an output, its case, what is allowed) ----
    "name.day01.saxpy": {"en": "saxpy out (n={n}, grid {blocks}x{threads})", "zh": "saxpy out（n={n}，网格 {blocks}x{threads}）"},
    "name.day01.read_sum": {"en": "read_sum partial, index = thread (n4={n4}, reps={reps}, grid {blocks}x{threads}; allowed: float32 rounding of each addition)", "zh": "read_sum partial，下标 = 线程（n4={n4}，reps={reps}，网格 {blocks}x{threads}；允许：每次加法的 float32 舍入误差）"},
    "name.day02.past": {"en": "strided_gather out past n_out", "zh": "strided_gather out 在 n_out 之后的部分"},
    "name.day02.scales": {"en": "quantize_int8 scales (rows={rows}, d={d}; scale = max|x| / 127; row 0 is all zeros: "
                                "scale 0)",
                          "zh": "quantize_int8 的 scales（rows={rows}，d={d}；scale = max|x| / 127；第 0 行全为零："
                                "scale 为 0）"},
    "name.day02.dequant": {"en": "dequantize_int8 out (rows={rows}, d={d}; q * scale rounded to fp16)", "zh": "dequantize_int8 out（rows={rows}，d={d}；q * scale 舍入到 fp16）"},
    "name.day03.ptx_math": {"en": "ptx_math {op} ({ptx}, n={n}; allowed: {stated}; ulp = the spacing of float32 "
                                  "numbers at the exact value (np.spacing))",
                            "zh": "ptx_math {op}（{ptx}，n={n}；允许：{stated}；ulp = 精确值处相邻 float32 数的间距"
                                  "（np.spacing））"},
    "name.day03.maxes": {"en": "warp_reduce maxes (n={n})", "zh": "warp_reduce 的最大值（n={n}）"},
    "name.day03.gelu": {"en": "gelu_tanh out ({dtype}, n={n}; allowed {why})", "zh": "gelu_tanh out（{dtype}，n={n}；允许 {why}）"},
    'name.day03.sums': {"en": "warp_reduce sums (n={n}; allowed 1e-6 x the group's sum of |x|)", "zh": 'warp_reduce 的和（n={n}；允许 1e-6 x 该组 |x| 之和）'},
    'name.day03.all_sum': {"en": "warp_reduce all_lanes sum, index (group, lane) (n={n}; every lane must end with the group's sum, not only lane 0)", "zh": 'warp_reduce all_lanes 的和，下标 (group, lane)（n={n}；每个通道最后都必须得到该组的和，而不只是通道 0）'},
    'name.day03.all_max': {"en": "warp_reduce all_lanes max, index (group, lane) (n={n}; every lane must end with the group's max)", "zh": 'warp_reduce all_lanes 的最大值，下标 (group, lane)（n={n}；每个通道最后都必须得到该组的最大值）'},
    'name.day04.past_end': {"en": "{kernel}: the row past out's end {where}", "zh": '{kernel}：out 末尾之后的那一行 {where}'},
    "name.day05.scan": {"en": "warp_scan out (rows={rows}, d={d}; -1 = never written)", "zh": "warp_scan out（rows={rows}，d={d}；-1 = 从未写入）"},
    "name.day05.m": {"en": "softmax_stats m, the max of each row {where}", "zh": "softmax_stats m，每行的最大值 {where}"},
    "name.day05.s": {"en": "softmax_stats s = sum exp(x - m) of each row {where}", "zh": "softmax_stats s = 每行的 sum exp(x - m) {where}"},
    "name.day05.softmax": {"en": "softmax out ({dtype}, rows={rows}, d={d}, {inputs} inputs)", "zh": "softmax out（{dtype}，rows={rows}，d={d}，输入 {inputs}）"},
    "name.day05.counts": {"en": "compact_count counts, index = block {where}", "zh": "compact_count 的计数，下标 = 线程块 {where}"},
    "name.day05.kept_idx": {"en": "compact_scatter out_idx[:{count}]: the kept indices, in increasing order {where}", "zh": "compact_scatter out_idx[:{count}]：保留下来的下标，按递增顺序 {where}"},
    "name.day05.kept": {"en": "compact_scatter out[:{count}]: the kept values, in input order {where}", "zh": "compact_scatter out[:{count}]：保留下来的值，按输入顺序 {where}"},
    "name.day05.past": {"en": "compact_scatter out past the count ({count}) {where}", "zh": "compact_scatter out 在计数（{count}）之后 {where}"},
    "name.day06.pass1": {"en": "block_sum pass 1 ({blocks} blocks, one partial each)", "zh": "block_sum 第 1 遍（{blocks} 个线程块，每块一个部分和）"},
    "name.day06.pass2": {"en": "block_sum pass 2 (one block over the partials)", "zh": "block_sum 第 2 遍（一个线程块处理所有部分和）"},
    "name.day06.exact": {"en": "block_sum of +-(1..8) integers, exact in any order (n={n})", "zh": "+-(1..8) 整数的 block_sum，任何顺序都精确（n={n}）"},
    "name.day06.floats": {"en": "block_sum of normal floats (n={n}, allowed error {bound:.2g})", "zh": "正态分布浮点数的 block_sum（n={n}，允许误差 {bound:.2g}）"},
    "name.day10.roundtrip": {"en": "swizzle_roundtrip_{cols}: the tile back out of swizzled shared memory (rows_valid={rows_valid}, cols_valid={cols_valid}: zeros outside)", "zh": "swizzle_roundtrip_{cols}：从交错排布的共享内存读回的分块（rows_valid={rows_valid}，cols_valid={cols_valid}：范围外为零）"},
    "name.day10.exact": {"en": "gemv of +-(1..4) integers, exact in any order {what}", "zh": "+-(1..4) 整数的 gemv，任何顺序都精确 {what}"},
    "name.day10.gemv": {"en": "gemv (N={n}, K={k}), allowed error {bound:.2g}", "zh": "gemv（N={n}，K={k}），允许误差 {bound:.2g}"},
    "name.day13.rotated": {"en": "rope rotated heads, {layout} {where}", "zh": "rope 旋转后的头，{layout} {where}"},
    "name.day13.chunked": {"en": "chunk={chunk}, causal", "zh": "chunk={chunk}，因果掩码"},
    "name.day13.prefix_lm": {"en": "prefix={prefix}, no causal", "zh": "prefix={prefix}，无因果掩码"},
    "name.day13.variant": {"en": "({what}, batch={batch}, qo_len<={qo_len}, kv_len<={kv_len}, heads {hq}/{hkv}, d={d}; "
                                 "q_pos = query's position in its request's KV{edition})",
                           "zh": "（{what}，batch={batch}，qo_len<={qo_len}，kv_len<={kv_len}，头 {hq}/{hkv}，d={d}；"
                                 "q_pos = 查询在其请求的 KV 中的位置{edition}）"},
    "name.day13.edition": {"en": "; rendered into your own days/day12/batch_prefill.cu, which must pass day 12 first: a "
                                 "student edition has no course version",
                           "zh": "；渲染进你自己的 days/day12/batch_prefill.cu，它要先通过第 12 天：学生版没有课程的版本"},
    "name.day13.o": {"en": "{variant} o {where}", "zh": "{variant} 的 o{where}"},
    "name.day13.lse2": {"en": "{variant} lse2 {where}", "zh": "{variant} 的 lse2{where}"},
    "name.day13.past": {"en": "rope heads past `heads` (the packed v) {where}", "zh": "rope 在 `heads` 之后的头（打包在一起的 v）{where}"},
    "name.capstone.block": {"en": "capstone layer output, end to end against float64 numpy ({cfg})",
                            "zh": "capstone 层的输出，端到端与 float64 numpy 比较（{cfg}）"},
    "name.capstone.stage": {"en": "capstone stage '{stage}' ({source}) output {output}",
                            "zh": "综合项目的级“{stage}”（{source}）的输出 {output}"},
    "name.capstone.torch": {"en": "torch eager layer against the course's ({cfg})", "zh": "torch eager 的层对比课程的层（{cfg}）"},
    "name.capstone.torch_block": {"en": "the torch eager block", "zh": "torch eager 的层（Transformer 块，不是线程块）"},
    "name.capstone.torch_out": {"en": "{name}: the output out", "zh": "{name}：输出 out"},
    "name.capstone.new_row": {"en": "{name}: {cache} row kv_len (the new token)", "zh": "{name}：{cache} 的第 kv_len 行（新的词元）"},
    "name.capstone.actual": {"en": "{what} (from its actual inputs; {cfg})", "zh": "{what}（按它实际的输入；{cfg}）"},
    "name.capstone.after": {"en": "{what}: the rows after the new token ({cfg})", "zh": "{what}：新词元之后的各行（{cfg}）"},
    "name.day12.causal": {"en": "causal", "zh": "因果掩码"},
    "name.day12.no_mask": {"en": "no mask", "zh": "无掩码"},
    "name.day12.out": {"en": "{family}_d{d} out (heads={heads}, q_len={q_len}, kv_len={kv_len}, {mask})",
                       "zh": "{family}_d{d} 的 out（heads={heads}，q_len={q_len}，kv_len={kv_len}，{mask}）"},
    "name.day12.ragged": {"en": "(batch={batch}, qo_len<={qo_len}, kv_len<={kv_len}, heads {hq}/{hkv}, d={d}, {mask})",
                          "zh": "（batch={batch}，qo_len<={qo_len}，kv_len<={kv_len}，头数 {hq}/{hkv}，d={d}，{mask}）"},
    "name.day12.paged": {"en": "(batch={batch}, qo_len<={qo_len}, kv_len<={kv_len}, page_size={page_size}, heads {hq}/{hkv}, "
                               "d={d}, {mask})",
                         "zh": "（batch={batch}，qo_len<={qo_len}，kv_len<={kv_len}，page_size={page_size}，头数 {hq}/{hkv}，"
                               "d={d}，{mask}）"},
    "name.day14.into_out": {"en": "binding.rmsnorm into out= {where}", "zh": "binding.rmsnorm 写入 out= {where}"},
    "name.day14.new": {"en": "binding.rmsnorm new array {where}", "zh": "binding.rmsnorm 返回的新数组 {where}"},
    "name.day14.late": {"en": " (wrong: launched on another stream, before x += 1 ran)",
                        "zh": "（若错误：核函数在另一个流上启动，早于 x += 1 执行）"},
    "name.day14.busy_cupy": {"en": "binding.rmsnorm on a busy cupy stream {where}{late}",
                             "zh": "binding.rmsnorm 在繁忙的 cupy 流上 {where}{late}"},
    "name.day14.torch_out": {"en": "binding.rmsnorm into out=, torch {name} {where}",
                             "zh": "binding.rmsnorm 写入 out=，torch {name} {where}"},
    "name.day14.busy_torch": {"en": "binding.rmsnorm on torch's busy current stream, torch {name} {where}{late}",
                              "zh": "binding.rmsnorm 在 torch 繁忙的当前流上，torch {name} {where}{late}"},
    "name.day14.ffi_cupy": {"en": "rmsnorm_ffi, cupy arrays {where}", "zh": "rmsnorm_ffi，cupy 数组 {where}"},
    "name.day14.against": {"en": "{what} against float64", "zh": "{what}，与 float64 对比"},
    "name.day14.ffi_out": {"en": "rmsnorm_ffi rmsnorm into out {where}", "zh": "rmsnorm_ffi rmsnorm 写入 out {where}"},
    "name.day14.ffi_busy": {"en": "rmsnorm_ffi rmsnorm on torch's busy current stream {where}{late}",
                            "zh": "rmsnorm_ffi rmsnorm 在 torch 繁忙的当前流上 {where}{late}"},
    "name.day14.eager": {"en": "course::rmsnorm eager {where}", "zh": "course::rmsnorm eager 模式 {where}"},
    "name.day14.compiled": {"en": "course::rmsnorm under torch.compile(fullgraph=True) {where}",
                            "zh": "torch.compile(fullgraph=True) 下的 course::rmsnorm {where}"},
    "name.day06.within": {"en": "{name} [each element within one {dtype} rounding of the float64 value: rtol {rtol:.3g}; "
                                "rows scaled by {scales} in turn, eps = {eps:g}]",
                          "zh": "{name} [每个元素与 float64 值相差不超过一次 {dtype} 舍入：rtol {rtol:.3g}；各行依次乘以 {scales}，"
                                "eps = {eps:g}]"},
    "name.day14.history": {"en": "{kernel} {name}_cache rows before pos[b] (the history) {where}",
                           "zh": "{kernel} {name}_cache 在 pos[b] 之前的行（历史）{where}"},
    "name.day14.new_row": {"en": "{prefix}{name}_cache row pos[b] (the new {name}) {where}",
                           "zh": "{prefix}{name}_cache 的第 pos[b] 行（新的 {name}）{where}"},
    "name.day14.after": {"en": "{kernel} {name}_cache rows after pos[b] {where}",
                         "zh": "{kernel} {name}_cache 在 pos[b] 之后的行 {where}"},
    # ---- a technique's own words (Technique.why and its (regex, what) pairs), found by their English ----
    "tech.one_16_byte_load_a_float4_per_element": {"en": "one 16-byte load (a float4) per element",
                                                   "zh": "每个元素一次 16 字节读取（一个 float4）"},
    "tech.16_byte_accesses_vec_t_in_quantize_int8": {"en": "16-byte accesses (vec_t) in quantize_int8",
                                                     "zh": "quantize_int8 中的 16 字节访问（vec_t）"},
    "tech.16_byte_accesses_vec_t_in_dequantize_int": {"en": "16-byte accesses (vec_t) in dequantize_int8",
                                                      "zh": "dequantize_int8 中的 16 字节访问（vec_t）"},
    "tech.your_own_inline_ptx_for_each_sfu_instruc": {"en": "your own inline PTX for each SFU instruction (asm with ex2/lg2/rsqrt/rcp/tanh .approx)",
                                                      "zh": "为每条 SFU 指令写你自己的内联 PTX（带 ex2/lg2/rsqrt/rcp/tanh .approx 的 asm）"},
    "tech.asm_statement_with_ex2_approx_my_exp2": {"en": "asm statement with ex2.approx (my_exp2)",
                                                   "zh": "带 ex2.approx 的 asm 语句（my_exp2）"},
    "tech.asm_statement_with_lg2_approx_my_log2": {"en": "asm statement with lg2.approx (my_log2)",
                                                   "zh": "带 lg2.approx 的 asm 语句（my_log2）"},
    "tech.asm_statement_with_rsqrt_approx_my_rsqrt": {"en": "asm statement with rsqrt.approx (my_rsqrt)",
                                                      "zh": "带 rsqrt.approx 的 asm 语句（my_rsqrt）"},
    "tech.asm_statement_with_rcp_approx_my_rcp": {"en": "asm statement with rcp.approx (my_rcp)",
                                                  "zh": "带 rcp.approx 的 asm 语句（my_rcp）"},
    "tech.asm_statement_with_tanh_approx_my_tanh": {"en": "asm statement with tanh.approx (my_tanh)",
                                                    "zh": "带 tanh.approx 的 asm 语句（my_tanh）"},
    "tech.a_math_library_call_exp2f_log2f_rsqrtf": {"en": "a math-library call (exp2f, log2f, rsqrtf, __fdividef, tanhf, ...) instead of inline asm",
                                                    "zh": "调用数学库函数（exp2f、log2f、rsqrtf、__fdividef、tanhf ...）而不是内联 asm"},
    "tech.course_math_s_wrappers": {"en": "course::math's wrappers",
                                    "zh": "course::math 的封装函数"},
    "tech.a_butterfly_of_register_exchanges_your_s": {"en": "a butterfly of register exchanges (your shfl.sync.bfly in inline asm), no shared memory",
                                                      "zh": "寄存器交换组成的蝶形（你在内联 asm 里写的 shfl.sync.bfly），不用共享内存"},
    "tech.asm_statement_with_shfl_sync_bfly_b32": {"en": "asm statement with shfl.sync.bfly.b32",
                                                   "zh": "带 shfl.sync.bfly.b32 的 asm 语句"},
    "tech.the_library_s_shuffles_or_reductions___s": {"en": "the library's shuffles or reductions (__shfl_xor_sync, course::math::shfl_xor_sync, cub)",
                                                      "zh": "库里的洗牌或归约（__shfl_xor_sync、course::math::shfl_xor_sync、cub）"},
    "tech.tanh_approx_on_the_sfu_mufu_tanh_and_16": {"en": "tanh.approx on the SFU (MUFU.TANH) and 16-byte accesses (LDG.E.128)",
                                                     "zh": "SFU 上的 tanh.approx（MUFU.TANH）和 16 字节访问（LDG.E.128）"},
    "tech.asm_statement_with_tanh_approx_f32": {"en": "asm statement with tanh.approx.f32",
                                                "zh": "带 tanh.approx.f32 的 asm 语句"},
    "tech.tanhf_or_course_math_s_ptx_tanh": {"en": "tanhf or course::math's ptx_tanh",
                                             "zh": "tanhf 或 course::math 的 ptx_tanh"},
    "tech.the_conversion_done_on_the_bits___float": {"en": "the conversion done on the bits (__float_as_uint and integer rounding) and cvt.rn.bf16x2.f32 in asm",
                                                     "zh": "在位模式上完成的转换（__float_as_uint 加整数舍入）和 asm 里的 cvt.rn.bf16x2.f32"},
    "tech.float_as_uint_the_float_s_bits": {"en": "__float_as_uint (the float's bits)",
                                            "zh": "__float_as_uint（浮点数的位模式）"},
    "tech.asm_statement_with_cvt_rn_bf16x2_f32": {"en": "asm statement with cvt.rn.bf16x2.f32",
                                                  "zh": "带 cvt.rn.bf16x2.f32 的 asm 语句"},
    "tech.the_library_s_bfloat16_conversions_or_ty": {"en": "the library's bfloat16 conversions or types",
                                                      "zh": "库里的 bfloat16 转换函数或类型"},
    "tech.a_transpose_through_a_shared_memory_tile": {"en": "a transpose through a shared-memory tile (coalesced reads and writes)",
                                                      "zh": "经过共享内存分块的转置（读和写都合并访存）"},
    "tech.16_byte_accesses_to_global_and_shared_me": {"en": "16-byte accesses to global and shared memory and an XOR-swizzled tile",
                                                      "zh": "对全局内存和共享内存的 16 字节访问，以及用 XOR 交错排布的分块"},
    "tech.xor_the_swizzle_of_the_chunk_index_by_bi": {"en": "XOR (^): the swizzle of the chunk index by bits of the row",
                                                      "zh": "XOR (^)：用行号的若干位对 16 字节块的下标做交错排布"},
    "tech.course_permuted_smem_cuh_s_swizzle_write": {"en": "course/permuted_smem.cuh's swizzle (write your own tile_chunk)",
                                                      "zh": "course/permuted_smem.cuh 的交错排布（请自己写 tile_chunk）"},
    "tech.a_warp_scan_with_shuffles___shfl_up_sync": {"en": "a warp scan with shuffles (__shfl_up_sync), every lane taking part",
                                                      "zh": "用洗牌（__shfl_up_sync）做的线程束扫描，每个通道都参与"},
    "tech.course_warp_inclusive_scan_course_warp_c": {"en": "course::warp_inclusive_scan (course/warp.cuh's finished scan)",
                                                      "zh": "course::warp_inclusive_scan（course/warp.cuh 里现成的线程束扫描）"},
    "tech.merging_max_sum_states_across_the_warp_w": {"en": "merging (max, sum) states across the warp with a __shfl_xor_sync butterfly",
                                                      "zh": "用 __shfl_xor_sync 蝶形在线程束内合并 (max, sum) 状态"},
    "tech.the_course_s_finished_warp_reductions_co": {"en": "the course's finished warp reductions (course/reduce.cuh, course/warp.cuh)",
                                                      "zh": "课程里现成的线程束归约（course/reduce.cuh、course/warp.cuh）"},
    "tech.a_softmax_whose_max_and_sum_are_your_own": {"en": "a softmax whose max and sum are your own __shfl_xor_sync butterflies, the row kept in registers",
                                                      "zh": "max 和 sum 都用你自己的 __shfl_xor_sync 蝶形求出、整行留在寄存器里的 softmax"},
    "tech.your_own_two_level_block_reduction_warp": {"en": "your own two-level block reduction: warp shuffles, then shared memory, no atomics and no CUB",
                                                     "zh": "你自己的两级线程块归约：先线程束洗牌，再共享内存，不用原子操作，也不用 CUB"},
    "tech.the_course_s_finished_reductions_course": {"en": "the course's finished reductions (course/reduce.cuh)",
                                                     "zh": "课程里现成的归约（course/reduce.cuh）"},
    "tech.atomics_atomicadd_and_friends": {"en": "atomics (atomicAdd and friends)",
                                           "zh": "原子操作（atomicAdd 之类）"},
    "tech.rmsnorm_with_your_own_block_reduction_wa": {"en": "RMSNorm with your own block reduction (warp shuffles, then shared memory), 16-byte accesses and the row in registers",
                                                      "zh": "用你自己的线程块归约（先线程束洗牌，再共享内存）、16 字节访问、整行留在寄存器里的 RMSNorm"},
    "tech.cub": {"en": "CUB", "zh": "CUB 库"},
    "tech.tensor_cores_fed_by_cp_async_and_ldmatri": {"en": "tensor cores fed by cp.async and ldmatrix",
                                                      "zh": "由 cp.async 和 ldmatrix 供数的张量核心"},
    "tech.a_pipelined_tensor_core_gemm_mma_sync_fe": {"en": "a pipelined tensor-core GEMM (mma.sync fed by cp.async and ldmatrix)",
                                                      "zh": "流水线化的张量核心 GEMM（由 cp.async 和 ldmatrix 供数的 mma.sync）"},
    "tech.fp8_mma_sync_m16n8k32_e4m3_fed_by_cp_asy": {"en": "FP8 mma.sync (m16n8k32 e4m3) fed by cp.async and ldmatrix",
                                                      "zh": "由 cp.async 和 ldmatrix 供数的 FP8 mma.sync（m16n8k32 e4m3）"},
    "tech.inline_mma_sync_aligned_m16n8k32_e4m3_e4": {"en": "inline mma.sync.aligned.m16n8k32 ... e4m3.e4m3",
                                                      "zh": "内联的 mma.sync.aligned.m16n8k32 ... e4m3.e4m3"},
    "tech.mma_sync_on_the_tensor_cores_fed_by_ldma": {"en": "mma.sync on the tensor cores fed by ldmatrix",
                                                      "zh": "张量核心上由 ldmatrix 供数的 mma.sync"},
    "tech.flashattention_2_on_mma_sync_ldmatrix_fr": {"en": "FlashAttention-2 on mma.sync: ldmatrix fragments, the online softmax in registers with quad shuffles, exp2 on the SFU",
                                                      "zh": "基于 mma.sync 的 FlashAttention-2：ldmatrix 片段，寄存器里用四线程洗牌做的在线 softmax，SFU 上的 exp2"},
    "tech.flashattention_2_on_mma_sync_fed_by_a_cp": {"en": "FlashAttention-2 on mma.sync fed by a cp.async pipeline",
                                                      "zh": "由 cp.async 流水线供数、基于 mma.sync 的 FlashAttention-2"},
    "tech.gqa_rows_packed_onto_the_tensor_cores_wi": {"en": "GQA rows packed onto the tensor cores, with the log-sum-exp",
                                                      "zh": "打包到张量核心上的 GQA 行，连同 log-sum-exp"},
    "tech.the_packed_gqa_prefill_reading_k_and_v_t": {"en": "the packed GQA prefill reading K and V through a page table",
                                                      "zh": "通过页表读取 K 和 V 的打包 GQA 预填充"},
    "tech.16_byte_vector_loads_and_stores_course_v": {"en": "16-byte vector loads and stores (course::vec_t<T, 8>, LDG.E.128 / STG.E.128)",
                                                      "zh": "16 字节的向量化读写（course::vec_t<T, 8>，LDG.E.128 / STG.E.128）"},
    "tech.16_byte_vector_loads_and_stores_course_v_10": {"en": "16-byte vector loads and stores (course::vec_t<T, 8>: LDG.E.128 / STG.E.128)",
                                                         "zh": "16 字节的向量化读写（course::vec_t<T, 8>：LDG.E.128 / STG.E.128）"},
    "tech.wgmma_for_both_products_hgmma_p_from_reg_11": {"en": "wgmma for both products (HGMMA, P from registers), TMA loads (UTMALDG) on mbarriers (SYNCS) and the softmax on the SFU (MUFU.EX2)",
                                                         "zh": "两次乘积都用 wgmma（HGMMA，P 来自寄存器），基于 mbarrier（SYNCS）的 TMA 读取（UTMALDG），SFU 上的 softmax（MUFU.EX2）"},
    "tech.wgmma_for_both_products_hgmma_p_from_reg_12": {"en": "wgmma for both products (HGMMA, P from registers), TMA loads (UTMALDG) on mbarriers (SYNCS) and the softmax on the SFU (MUFU.EX2), one wgmma group left in flight while it runs (WARPGROUP.DEPBAR.LE gsb0, 0x1)",
                                                         "zh": "两次乘积都用 wgmma（HGMMA，P 来自寄存器），基于 mbarrier（SYNCS）的 TMA 读取（UTMALDG），SFU 上的 softmax（MUFU.EX2），运行时保留一个在途的 wgmma 组（WARPGROUP.DEPBAR.LE gsb0, 0x1）"},
    "tech.wgmma_wait_1_p_v_left_in_flight_during_t_13": {"en": "wgmma_wait<1>: P V left in flight during the softmax",
                                                         "zh": "wgmma_wait<1>：softmax 期间 P V 仍在途"},
    "tech.softmax_between_the_two_wgmma_waits": {"en": "softmax (MUFU.EX2) between wgmma_wait<1> and wgmma_wait<0>, while P V runs",
                                                          "zh": "位于 wgmma_wait<1> 与 wgmma_wait<0> 之间、与 P V 同时运行的 softmax（MUFU.EX2）"},
    "tech.wgmma_for_both_products_hgmma_p_from_reg_14": {"en": "wgmma for both products (HGMMA, P from registers), TMA loads (UTMALDG) on mbarriers (SYNCS) and the softmax on the SFU (MUFU.EX2), one wgmma group left in flight while it runs (WARPGROUP.DEPBAR.LE gsb0, 0x1), and warpgroups taking turns (BAR.ARV)",
                                                         "zh": "两次乘积都用 wgmma（HGMMA，P 来自寄存器），基于 mbarrier（SYNCS）的 TMA 读取（UTMALDG），SFU 上的 softmax（MUFU.EX2），运行时保留一个在途的 wgmma 组（WARPGROUP.DEPBAR.LE gsb0, 0x1），各线程束组轮流执行（BAR.ARV）"},
    "tech.2d_tiles_of_k_pipelined_with_cp_async__l": {"en": "2D tiles of K pipelined with cp.async (LDGSTS), reduced with warp shuffles",
                                                     "zh": "用 cp.async（LDGSTS）流水线加载的 K 的二维分块，再用线程束洗牌归约"},
    "tech.a_double_buffer_filled_with_cp_async__ld": {"en": "a double buffer filled with cp.async (LDGSTS), one tile in flight",
                                                     "zh": "用 cp.async（LDGSTS）填充的双缓冲，一个分块在途"},
    "tech.an_n_stage_ring_of_shared_memory_tiles_f": {"en": "an N-stage ring of shared-memory tiles filled with cp.async (LDGSTS)",
                                                     "zh": "用 cp.async（LDGSTS）填充的 N 级共享内存分块环形缓冲区"},
    "tech.cp_async_written_by_hand__your_own_inlin": {"en": "cp.async written by hand: your own inline PTX copies, committed and waited for",
                                                     "zh": "手写的 cp.async：用你自己的内联 PTX 发出拷贝，再提交、等待"},
    "tech.keeping_1_tile_in_flight_while_tile_k_is": {"en": "keeping 1 tile in flight while tile k is used",
                                                     "zh": "使用分块 k 时保持 1 个分块在途"},
    "tech.keeping_2_tiles_in_flight_while_tile_k_i": {"en": "keeping 2 tiles in flight while tile k is used",
                                                     "zh": "使用分块 k 时保持 2 个分块在途"},
    "tech.keeping_3_tiles_in_flight_while_tile_k_i": {"en": "keeping 3 tiles in flight while tile k is used",
                                                     "zh": "使用分块 k 时保持 3 个分块在途"},
    "tech.keeping_5_tiles_in_flight_while_tile_k_i": {"en": "keeping 5 tiles in flight while tile k is used",
                                                     "zh": "使用分块 k 时保持 5 个分块在途"},
    "tech.keeping_7_tiles_in_flight_while_tile_k_i": {"en": "keeping 7 tiles in flight while tile k is used",
                                                     "zh": "使用分块 k 时保持 7 个分块在途"},
    "tech.inline_ptx_cp_async_ca__cg_shared_global": {"en": "inline PTX cp.async.ca/.cg.shared.global",
                                                     "zh": "内联 PTX cp.async.ca/.cg.shared.global"},
    "tech.inline_ptx_cp_async_commit_group": {"en": "inline PTX cp.async.commit_group",
                                             "zh": "内联 PTX cp.async.commit_group"},
    "tech.inline_ptx_cp_async_wait_group": {"en": "inline PTX cp.async.wait_group",
                                           "zh": "内联 PTX cp.async.wait_group"},
    "tech.the_course_s_finished_cp_async_header": {"en": "the course's finished cp.async header",
                                                  "zh": "课程里现成的 cp.async 头文件"},
    "tech.cub__write_the_scans_yourself_here_": {"en": "CUB (write the scans yourself here)",
                                                "zh": "CUB（这里请自己写扫描）"},
    "tech.inline_ptx_ld_acquire_gpu_global": {"en": "inline PTX ld.acquire.gpu.global",
                                             "zh": "内联 PTX ld.acquire.gpu.global"},
    "tech.inline_ptx_st_release_gpu_global": {"en": "inline PTX st.release.gpu.global",
                                             "zh": "内联 PTX st.release.gpu.global"},
    "tech.scans_written_with_warp_shuffles__shfl_s": {"en": "scans written with warp shuffles (shfl.sync.up), no library",
                                                     "zh": "用线程束洗牌（shfl.sync.up）自己写的扫描，不用库"},
    "tech.the_course_s_finished_look_back__course_": {"en": "the course's finished look-back (course/scan.cuh)",
                                                     "zh": "课程里现成的扫描回看（course/scan.cuh）"},
    "tech.the_decoupled_look_back__tiles_claimed_w": {"en": "the decoupled look-back: tiles claimed with an atomic counter, states published with a release store and read with acquire loads, predecessors scanned 32 at a time with warp votes",
                                                     "zh": "解耦回看：用原子计数器领取分块，分块状态用 release 存储发布、用 acquire 加载读取，借助线程束投票每次检查 32 个前驱分块"},
    "tech.course__mma_s_ldmatrix_wrappers__write_t": {"en": "course::mma's ldmatrix wrappers (write the PTX yourself)",
                                                     "zh": "course::mma 的 ldmatrix 封装函数（请自己写 PTX）"},
    "tech.course__mma_s_mma_wrappers__write_the_pt": {"en": "course::mma's mma wrappers (write the PTX yourself)",
                                                     "zh": "course::mma 的 mma 封装函数（请自己写 PTX）"},
    "tech.inline_ptx__ldmatrix_sync_aligned____": {"en": "inline PTX `ldmatrix.sync.aligned...`",
                                                  "zh": "内联 PTX `ldmatrix.sync.aligned...`"},
    "tech.inline_ptx__mma_sync_aligned_m16n8k16___": {"en": "inline PTX `mma.sync.aligned.m16n8k16...`",
                                                     "zh": "内联 PTX `mma.sync.aligned.m16n8k16...`"},
    "tech.ldmatrix_written_as_inline_ptx": {"en": "ldmatrix written as inline PTX",
                                           "zh": "用内联 PTX 写的 ldmatrix"},
    "tech.mma_sync_m16n8k16_on_the_tensor_cores__w": {"en": "mma.sync m16n8k16 on the tensor cores, written as inline PTX",
                                                     "zh": "张量核心上的 mma.sync m16n8k16，用内联 PTX 写成"},
    "tech.warp_tiles_of_ldmatrix_and_mma_sync_on_t": {"en": "warp tiles of ldmatrix and mma.sync on the tensor cores",
                                                     "zh": "由 ldmatrix 和张量核心上的 mma.sync 组成的线程束分块"},
    "tech.a_warp_s_decode__scores_summed_by_warp_s": {"en": "a warp's decode: scores summed by warp shuffles, exp as ex2.approx, state in registers",
                                                     "zh": "一个线程束完成的解码：分数用线程束洗牌求和，exp 用 ex2.approx，状态留在寄存器里"},
    "tech.state_t__merge__state_cuh___write_the_me": {"en": "state_t::merge (state.cuh): write the merge yourself",
                                                     "zh": "state_t::merge（state.cuh）：请自己写合并"},
    "tech.streaming_k_and_v_with_cp_async__ldgsts_": {"en": "streaming K and V with cp.async (LDGSTS), scores by warp shuffles, state in registers",
                                                     "zh": "用 cp.async（LDGSTS）流式读取 K 和 V，分数用线程束洗牌求和，状态留在寄存器里"},
    "tech.the_course_s_state_t__course_attention_s": {"en": "the course's state_t (course/attention/state.cuh): write yours in state.cuh",
                                                     "zh": "课程注意力头文件里的 state_t（course/attention/state.cuh）：请在 state.cuh 里写你自己的"},
    "tech.the_merge_of_softmax_states__exp_as_one_": {"en": "the merge of softmax states: exp as one ex2.approx (MUFU.EX2), the state in registers",
                                                     "zh": "softmax 状态的合并：exp 用一条 ex2.approx（MUFU.EX2），状态留在寄存器里"},
    "tech.the_online_softmax__exp_as_one_ex2_appro": {"en": "the online softmax: exp as one ex2.approx (MUFU.EX2), the state in registers",
                                                     "zh": "在线 softmax：exp 用一条 ex2.approx（MUFU.EX2），状态留在寄存器里"},
    "tech.the_paged_decode_streaming_k_and_v_with_": {"en": "the paged decode streaming K and V with cp.async (LDGSTS), state in registers",
                                                     "zh": "分页解码：用 cp.async（LDGSTS）流式读取 K 和 V，状态留在寄存器里"},
    "tech.fp8_warpgroup_mma__wgmma_m64n256k32_on_e": {"en": "FP8 warpgroup MMA: wgmma m64n256k32 on e4m3 (QGMMA ... E4M3.E4M3), TMA in and out",
                                                     "zh": "FP8 线程束组 MMA：e4m3 上的 wgmma m64n256k32（QGMMA ... E4M3.E4M3），输入和输出都经过 TMA"},
    "tech._mbarrier_arrive_expect_tx__with_the_box": {"en": "`mbarrier.arrive.expect_tx` with the box's bytes",
                                                     "zh": "声明 box 字节数的 `mbarrier.arrive.expect_tx`"},
    "tech.a_tma_tensor_copy__utmaldg__completing_o": {"en": "a TMA tensor copy (UTMALDG) completing on an mbarrier (SYNCS)",
                                                     "zh": "在 mbarrier（SYNCS）上完成的 TMA 张量拷贝（UTMALDG）"},
    "tech.a_persistent_warp_specialised_gemm__tma_": {"en": "a persistent warp-specialised GEMM: TMA loads (UTMALDG) and TMA stores of c (UTMASTG), one wgmma group kept in flight (WARPGROUP.DEPBAR.LE gsb0, 0x1), no plain global stores",
                                                     "zh": "持久化的线程束专用化 GEMM：TMA 读取（UTMALDG）和 c 的 TMA 存储（UTMASTG），保持一个 wgmma 组在途（WARPGROUP.DEPBAR.LE gsb0, 0x1），没有普通的全局存储"},
    "tech.producer_and_consumer_warpgroups__tma_lo": {"en": "producer and consumer warpgroups: TMA loads (UTMALDG) into mbarrier stages (SYNCS), wgmma (HGMMA), registers moved by setmaxnreg (USETMAXREG)",
                                                     "zh": "生产者和消费者线程束组：TMA 读取（UTMALDG）进入由 mbarrier 管理的各级（SYNCS），wgmma（HGMMA），用 setmaxnreg 调配寄存器（USETMAXREG）"},
    "tech.the_course_s_finished_tma_helpers__cours": {"en": "the course's finished TMA helpers (course/hopper/tma.cuh)",
                                                     "zh": "课程里现成的 TMA 辅助函数（course/hopper/tma.cuh）"},
    "tech.wgmma_mma_async_on_descriptors_of_swizzl": {"en": "wgmma.mma_async on descriptors of swizzled shared memory (HGMMA)",
                                                     "zh": "基于交错排布共享内存描述符的 wgmma.mma_async（HGMMA）"},
    "tech.wgmma_wait_1___one_wgmma_group_left_in_f": {"en": "wgmma_wait<1>: one wgmma group left in flight",
                                                     "zh": "wgmma_wait<1>：保留一个在途的 wgmma 组"},
    "emu.uninit": {"en": "read of uninitialised shared memory: {where} by {who} reads shared offset {offset} before any "
                         "thread of its block wrote it",
                   "zh": "读取了未初始化的共享内存：{who} 执行的 {where} 读取共享内存偏移 {offset}，而它所在线程块还没有任何线程"
                         "写过这个位置"},
    "emu.tx_short": {"en": "expected {expected} bytes (expect_tx{at}), got {got} from bulk copies",
                     "zh": "期望 {expected} 字节（expect_tx{at}），只从批量拷贝得到 {got} 字节"},
    "emu.arrivals_missing": {"en": "{pending} of {count} arrivals missing", "zh": "{count} 次到达中缺了 {pending} 次"},
    "emu.mbarrier_stuck": {"en": "mbarrier never completed: {where} by {who} and {more} more threads wait for phase {phase} "
                                 "of the mbarrier at shared offset {offset}, which can never complete: {why}",
                           "zh": "mbarrier 永远不会完成：{who} 执行的 {where} 和另外 {more} 个线程在等待共享内存偏移 {offset} 处 "
                                 "mbarrier 的第 {phase} 阶段，而它永远不会完成：{why}"},
    "emu.named_stuck": {"en": "named barrier {bar} never completes: {where} waits for {need} threads; {here} wait there "
                              "({who} first) and {credits} more passed it with bar.arrive. Every bar.sync {bar}, {need} "
                              "needs {need} threads between its own and the other side's bar.arrive (a ping-pong whose "
                              "first turn is never given away deadlocks so).",
                        "zh": "具名屏障 {bar} 永远不会完成：{where} 等待 {need} 个线程；有 {here} 个在那里等待（第一个是 {who}），"
                              "另有 {credits} 个用 bar.arrive 通过了它。每个 bar.sync {bar}, {need} 都需要自己一方和另一方的 "
                              "bar.arrive 合起来凑满 {need} 个线程（乒乓式交替中第一轮从不让出，就会这样死锁）。"},
    # ---- a lesson's code misusing the emulator's device arrays and kernels (as cupy would refuse it) ----
    "emu.to_numpy": {"en": "implicit conversion of an emulated device array to numpy is not allowed (as with cupy): use "
                           ".get() or grader.device.to_host()",
                     "zh": "不允许把模拟的设备数组隐式转换成 numpy 数组（与 cupy 一样）：请用 .get() 或 grader.device.to_host()"},
    "emu.numpy_operand": {"en": "operands of a device array must be device arrays or scalars, not numpy arrays (as with "
                                "cupy): copy with grader.device.asarray() first",
                          "zh": "设备数组的运算对象必须是设备数组或标量，而不是 numpy 数组（与 cupy 一样）：请先用 "
                                "grader.device.asarray() 拷贝过去"},
    "emu.reshape_copy": {"en": "reshape would copy: the emulator's device arrays reshape only as views",
                         "zh": "reshape 需要拷贝：模拟器的设备数组只能以视图的方式 reshape"},
    "emu.cannot_allocate": {"en": "cannot allocate {nbytes} bytes", "zh": "无法分配 {nbytes} 字节"},
    "emu.arg_count": {"en": "{kernel} takes {count} arguments, {given} given", "zh": "{kernel} 需要 {count} 个参数，给了 {given} 个"},
    "emu.cupy_array": {"en": "{what}: a cupy array cannot be passed to the emulator; use grader.device arrays",
                       "zh": "{what}：不能把 cupy 数组传给模拟器；请用 grader.device 的数组"},
    "emu.cannot_pass": {"en": "{what}: cannot pass a {kind}", "zh": "{what}：不能传入 {kind}"},
    "emu.arg_size": {"en": "{what}: got {size} bytes ({kind}); pass a numpy scalar of the parameter's C type (np.int32, "
                           "np.int64, np.float32, ...)",
                     "zh": "{what}：得到 {size} 字节（{kind}）；请传入与参数的 C 类型对应的 numpy 标量（np.int32、np.int64、"
                           "np.float32 ...）"},
    "emu.dims": {"en": "{what} {value}: expected 1 to 3 positive sizes", "zh": "{what} {value}：应为 1 到 3 个正的大小"},
    "emu.no_kernel": {"en": "{module} has no kernel {name!r} (extern \"C\" kernels: {known})",
                      "zh": "{module} 里没有核函数 {name!r}（extern \"C\" 核函数：{known}）"},
    "emu.no_global": {"en": "no global variable {name!r}", "zh": "没有全局变量 {name!r}"},
    "emu.to_host": {"en": "to_host expects a device array, got {kind}", "zh": "to_host 需要一个设备数组，得到的是 {kind}"},
    "name.day07.tail": {"en": "async_copy_{copy_bytes}b out[n:], the zero-filled tail of the last tile (n={n})",
                        "zh": "async_copy_{copy_bytes}b out[n:]，最后一个分块用零填充的尾部（n={n}）"},
    "name.day07.qk_where": {"en": "(n={n} rows of K, blocks={blocks})", "zh": "（K 有 n={n} 行，线程块数 blocks={blocks}）"},
    "name.day07.qk": {"en": "qk_scores {where}", "zh": "qk_scores 的 scores{where}"},
    "name.day07.past": {"en": "{what} past n {where}", "zh": "{what} 在 n 之后的部分 {where}"},
    "name.day07.allowed": {"en": "{what}, allowed error {bound:.2g}", "zh": "{what}，允许误差 {bound:.2g}"},
    "name.day07.exact": {"en": "colsum of +-(1..8) integers, exact in any order {what}",
                         "zh": "+-(1..8) 整数的 colsum，任何顺序都精确 {what}"},
    "name.day08.left_alone": {"en": "{name} (must be left alone: still the poison {poison})",
                              "zh": "{name}（必须保持不动：仍为毒值 {poison}）"},
    "name.day08.past": {"en": "{what} past n (n={n})", "zh": "{what} 在 n 之后的部分（n={n}）"},
    "name.day08.warp": {"en": "warp_inclusive_sum_i32 out (n={n}; each warp's 32 elements on their own)",
                        "zh": "warp_inclusive_sum_i32 out（n={n}；每个线程束的 32 个元素各自扫描）"},
    "name.day08.tile_sums": {"en": "block_exclusive_sum_i32 tile_sums (n={n}, {tiles} tiles of {tile})",
                             "zh": "block_exclusive_sum_i32 tile_sums（n={n}，{tiles} 个分块，每块 {tile} 个元素）"},
    "name.day08.past_tile": {"en": "block_exclusive_sum_i32 tile_sums past the last tile (n={n})",
                             "zh": "block_exclusive_sum_i32 tile_sums 在最后一个分块之后的部分（n={n}）"},
    "name.day08.block": {"en": "block_exclusive_sum_i32 out (n={n}; each tile of {tile} on its own)",
                         "zh": "block_exclusive_sum_i32 out（n={n}；每个 {tile} 元素的分块各自扫描）"},
    "name.day08.scan_launch": {"en": "exclusive_sum_i32 ({tiles} tiles)", "zh": "exclusive_sum_i32（{tiles} 个分块）"},
    "name.day08.lookback_launch": {"en": "lookback_i32 ({probed} tiles probed of {tiles})",
                                   "zh": "lookback_i32（{tiles} 个分块中探测 {probed} 个）"},
    "name.day08.lookback_where": {"en": "(tiles {probed} of {tiles}, the others published beforehand: {prefixes} "
                                        "inclusive prefixes, the rest aggregates)",
                                  "zh": "（探测 {tiles} 个分块中的 {probed}；其余分块事先已发布：{prefixes} 个包含前缀，"
                                        "其余是聚合值）"},
    "name.day08.lookback_prefix": {"en": "the look-back's exclusive prefix {where}", "zh": "回看得到的排他前缀 {where}"},
    "name.day08.lookback_flags": {"en": "the probed tiles' flags after the look-back (2 = TILE_PREFIX) {where}",
                                  "zh": "回看之后被探测分块的标志（2 = TILE_PREFIX）{where}"},
    "name.day08.lookback_published": {"en": "the inclusive prefixes the probed tiles published {where}",
                                      "zh": "被探测分块发布的包含前缀 {where}"},
    "name.day08.indptr": {"en": "build_indptr of {what}", "zh": "build_indptr，输入为{what}"},
    "name.day08.past_indptr": {"en": "build_indptr past indptr[batch] of {what}",
                               "zh": "build_indptr 在 indptr[batch] 之后的部分，输入为{what}"},
    "name.day08.lengths": {"en": "the lengths {where}", "zh": "各序列的长度 {where}"},
    "name.day08.selected": {"en": "the selected sequences' lengths {where}", "zh": "选中序列的长度 {where}"},
    "name.day08.segment_sum": {"en": "segment_sum {where}, allowed error {bound:.2g}",
                               "zh": "segment_sum {where}，允许误差 {bound:.2g}"},
    "name.day08.gather": {"en": "gather_rows out {where}, {ids} sequences, {rows} rows",
                          "zh": "gather_rows out {where}，{ids} 个序列，{rows} 行"},
    "name.day08.past_row": {"en": "gather_rows out past the last row {where}",
                            "zh": "gather_rows out 在最后一行之后的部分 {where}"},
    "name.day09.ldmatrix": {"en": "ldmatrix_{variant} registers [tile, lane, register] (tiles={tiles}; registers past "
                                  "{num} must keep the poison {poison})",
                            "zh": "ldmatrix_{variant} 的寄存器，下标 [分块, 通道, 寄存器]（tiles={tiles}；第 {num} 个之后的"
                                  "寄存器必须保持毒值 {poison}）"},
    "name.day09.mma": {"en": "{name} D = A @ B + C [tile, row, col] (count={count})",
                       "zh": "{name} D = A @ B + C，下标 [分块, 行, 列]（count={count}）"},
    "name.day15.wgmma": {"en": "{name} D = A @ B^T + D [tile, row, col] (count={count}, K={k})",
                         "zh": "{name} D = A @ B^T + D，下标 [分块, 行, 列]（count={count}，K={k}）"},
    "name.day15.tma_copy": {"en": "tma_copy out [row, col] (rows={rows}, cols={cols})",
                            "zh": "tma_copy out，下标 [行, 列]（rows={rows}，cols={cols}）"},
    "help.commands": {"en": "    show-config             GPU, driver, CUDA, NVRTC and cupy versions, cache and include paths\n"
                        "    compile [dayNN|file]    compile stubs and solutions for sm_80 and sm_90 with NVRTC (no GPU needed)\n"
                        "    check dayNN             run the day's tests, one child process per exercise; a table at the end\n"
                        "    bench dayNN             benchmark the day's exercises against the measured ceiling; PNG plots\n"
                        "    sass FILE               SASS instruction histogram and registers / spills / shared memory;\n"
                        "                            --ptx-map [FILTER]: the SASS each PTX instruction became, by source line\n"
                        "    stubs [dayNN]           regenerate the student stubs from solutions/ (never overwrites your edits)\n"
                        "    progress                one line per day for the whole course\n"
                        "    release DIR             build the nbgrader course (release without solution code) in DIR;\n"
                        "                            --lang en|zh|both (Chinese assignments are named dayNN-zh)\n"
                        "    sanitize dayNN          the day's tests under compute-sanitizer (memcheck, racecheck, synccheck)\n"
                        "    autotune                search the day 10 GEMM's configuration space on the GPU in use\n"
                        "    hint dayNN exercise     the exercise's hints, level by level (--level 1|2|3)\n"
                        "    answer dayNN N          thought question N's model answer, once your notebook holds your own\n"
                        "    notebooks [dayNN]       regenerate the student notebooks from instructor/notebooks/ (keeps your edits)\n"
                        "    debug day11|day12 ex    the first KV tile where an attention kernel leaves a float64 reference\n"
                        "    profile dayNN [exercise] an exercise's benchmark case under Nsight Compute (the emulator's estimates\n"
                        "                            without a GPU); --compare, --all-sizes, --timeline (day14)\n"
                        "    grade-class DIR         autograde a whole nbgrader class on Ray (this machine or --address); resumable\n"
                        "    leaderboard DIR dayNN   time every student's passing kernel under cheat-proof rules (% of ceiling)\n"
                        "    student-edition DIR     what a class hands students: no solutions/, instructor/ or tests/ (--unlocked DAYS)",
                      "zh": "    show-config             GPU、驱动、CUDA、NVRTC 和 cupy 的版本，缓存与头文件搜索路径\n"
                        "    compile [dayNN|file]    用 NVRTC 为 sm_80 和 sm_90 编译桩文件和参考解答（不需要 GPU）\n"
                        "    check dayNN             运行当天的测试，每个练习一个子进程；最后给出一张表\n"
                        "    bench dayNN             对当天的练习做基准测试，与实测的上限比较；输出 PNG 图\n"
                        "    sass FILE               SASS 指令直方图，以及寄存器 / 溢出 / 共享内存用量；\n"
                        "                            --ptx-map [FILTER]：每条 PTX 指令变成了哪些 SASS，按源代码行列出\n"
                        "    stubs [dayNN]           从 solutions/ 重新生成学生的桩文件（从不覆盖你的修改）\n"
                        "    progress                整个课程每天一行的进度\n"
                        "    release DIR             在 DIR 中构建 nbgrader 课程（发布版不含参考解答的代码）；\n"
                        "                            --lang en|zh|both（中文作业名为 dayNN-zh）\n"
                        "    sanitize dayNN          在 compute-sanitizer 下运行当天的测试（memcheck、racecheck、synccheck）\n"
                        "    autotune                在当前 GPU 上搜索第 10 天 GEMM 的配置空间\n"
                        "    hint dayNN exercise     练习的提示，逐级给出（--level 1|2|3）\n"
                        "    answer dayNN N          第 N 道思考题的参考答案，在你的笔记本写了自己的答案之后才显示\n"
                        "    notebooks [dayNN]       从 instructor/notebooks/ 重新生成学生笔记本（保留你的修改）\n"
                        "    debug day11|day12 ex    注意力核函数第一次偏离 float64 参考结果的 KV 分块\n"
                        "    profile dayNN [exercise] 在 Nsight Compute 下分析练习的基准测试用例（没有 GPU 时用模拟器的\n"
                        "                            估计）；--compare、--all-sizes、--timeline（day14）\n"
                        "    grade-class DIR         在 Ray 上自动评分整个 nbgrader 班级（本机或 --address）；可断点续评\n"
                        "    leaderboard DIR dayNN   按防作弊规则为每个学生通过的核函数计时（占上限的 %）\n"
                        "    student-edition DIR     发给学生的版本：不含 solutions/、instructor/ 和 tests/（--unlocked DAYS）"},
}


#: A space between two Chinese characters, as a field that is Chinese leaves it ("按 {why} 评分"): dropped.
_CJK_SPACE = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")


def say(key: str, lang: str | None = None, **fields) -> str:
    """The catalogue's text for `key` in `lang` (default: the lessons' language), fields filled in; in
    Chinese without a space between two Chinese characters (Chinese puts none between words)."""
    from grader.language import language

    lang = lang or language()
    text = CATALOGUE[key].get(lang, CATALOGUE[key]["en"]).format(**fields)
    return _CJK_SPACE.sub("", text) if lang == "zh" else text


class Shown(str):
    """A catalogue text the code holds in English (to compare, to key on) that shows itself in the lessons'
    language wherever it is printed or formatted, as a lesson's f"{demo.title}" does."""

    def __new__(cls, key: str) -> "Shown":
        text = super().__new__(cls, CATALOGUE[key]["en"])
        text.key = key
        return text

    def __str__(self) -> str:
        return say(self.key)

    def __format__(self, spec: str) -> str:
        return format(say(self.key), spec)

    def __reduce__(self):
        return Shown, (self.key,)


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


def helped(text: str) -> str:
    """A command line's help text, as the code holds it (in English), in the lessons' language: the
    catalogue's help.* entry with that English; a text the catalogue lacks stays as it is."""
    key = next((k for k, e in CATALOGUE.items() if k.startswith("help.") and e["en"] == text), None)
    return say(key) if key else text


def described(text: str) -> str:
    """A technique's words (Technique.why, a source check's `what`), as the exercise holds them (in
    English), in the lessons' language: the catalogue's tech.* entry with that English; words the
    catalogue lacks stay as they are."""
    key = next((k for k, e in CATALOGUE.items() if k.startswith("tech.") and e["en"] == text), None)
    return say(key) if key else text


@functools.cache
def _phrases() -> tuple[dict[str, str], re.Pattern]:
    """The plot.* phrases and their Chinese, and a pattern finding them as whole words, the longest first."""
    phrases = {e["en"]: e["zh"] for k, e in CATALOGUE.items() if k.startswith("plot.")}
    return phrases, re.compile("|".join(rf"(?<![\w-]){re.escape(en)}(?![\w-])"
                                        for en in sorted(phrases, key=len, reverse=True)))


def phrased(text: str, lang: str | None = None) -> str:
    """A label made of the catalogue's plot.* phrases (a plot's title, axis or legend, a benchmark table's
    title and series) in `lang` (default: the lessons' language): in Chinese each phrase replaced whole,
    the rest (numbers, kernel and library names) kept."""
    from grader.language import language

    if (lang or language()) != "zh":
        return text
    phrases, pattern = _phrases()
    return pattern.sub(lambda m: phrases[m.group(0)], text)


def word(group: str, name: str, lang: str | None = None) -> str:
    """A name the code keeps in English (an occupancy limiter, an instruction-mix family, an outcome's
    status) as the student reads it: the catalogue's `group.name`; a name it does not hold stays as it is."""
    key = f"{group}.{name}"
    return say(key, lang) if key in CATALOGUE else name


def status(name: str, lang: str | None = None) -> str:
    """An outcome's status (passed, failed, crashed, timed out, not run) as the student reads it."""
    return word("status", name, lang)


def ceiling(label: str, lang: str | None = None) -> str:
    """A benchmark's ceiling (copy bandwidth, cuBLAS gemv, ...) as the student reads it; a name the
    catalogue does not hold (cuBLAS, cupy.cumsum) is the same in both languages."""
    return word("ceiling", label, lang)
