// The configuration a day-11 decode file is compiled for. By default the tuned one: fp16 q, o, K and V,
// HEAD_DIM 128, NHD. grader/launchers/decode.py compiles the same file again for each other configuration
// (the way FlashInfer's JIT specialises its templates) with -DDECODE_Q=<q and o type>
// -DDECODE_KV=<K and V type> -DDECODE_HEAD_DIM=<64, 128 or 256> -DDECODE_LAYOUT=<NHD or HND>, and
// -DDECODE_KV_SCALES for an fp8 cache, whose kernels take k_scale and v_scale after scale_log2
// (DECODE_SCALE_PARAMS in a kernel's parameters, DECODE_SCALE_ARGS where it passes them on).
#pragma once

#ifndef DECODE_KV
#define DECODE_Q half
#define DECODE_KV half
#define DECODE_HEAD_DIM 128
#define DECODE_LAYOUT NHD
#endif
#ifdef DECODE_KV_SCALES
#define DECODE_SCALE_PARAMS , float k_scale, float v_scale
#define DECODE_SCALE_ARGS k_scale, v_scale
#else
#define DECODE_SCALE_PARAMS
#define DECODE_SCALE_ARGS 1.f, 1.f
#endif
