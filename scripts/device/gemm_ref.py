#!/usr/bin/env python3
"""PyTorch reference for the gemm benchmark: the bar gpubench must meet at 8192^3.

Runs on the GPU machine in the same session as `gpubench run --bench gemm`
(scripts/device-run.sh ref gemm). Every product is 8192 x 8192 x 8192 on random
operands (never zeros), warm-up first, then 30 products each timed with CUDA
events; the figure is the median, as TFLOP/s (TOP/s for int8) = 2 m n k / s / 1e12.

  fp64, fp32 (TF32 off), tf32, fp16, bf16  torch.matmul, in the TN layout (the
      case names of gpubench's TN cases) and the NN layout ("_nn", as gpubench
      names them with --opt gemm.layout=nn)
  fp64_f32values                           fp64 operands holding float32 values
      (the first version of this script): lower power, higher clocks, ~8% faster
  fp8e4m3 (and e4m3 x e5m2), fast/slow acc  torch._scaled_mm, per-tensor scales, bf16 out
  fp8e4m3_e4m3out, fast/slow acc            the same with an e4m3 output and result scale 0.5
  int8                                      torch._int_mm (int32 out), TN

Operands are uniform in [-1, 1) with every mantissa bit random, as gpubench's
fill makes them: drawn in float64 for fp64 and fp32/tf32 operands (then
rounded to float32), in float32 for the narrower types. torch.rand's float32
draws lie on a 2^-24 grid, so a float32 operand drawn in float32 has its
lowest mantissa bits zero below 0.5 in magnitude (two on average): fewer bits
toggling, less power. GEMM_REF_FP32_DRAW=float32 keeps that older draw for
fp32 and tf32, for comparison.

Prints comment lines (#) and a CSV table `name,tflops` on stdout; a case the
installed PyTorch cannot run prints `name,` and the reason as a comment.
Arguments, if any, name the cases to run (e.g. `gemm_ref.py bf16 fp16`).
GEMM_REF_SETS=N rotates the calls among N operand sets (default 1, one set,
as the issue's reference figures were measured); gpubench rotates among 2 at
8192^3 in fp8 and int8, where one set is 128 MiB, under three L2s.
GEMM_REF_TIMING=chain times the calls as gpubench's default does (one untimed
call, then one chain of events: each sample from the event that ends the
previous call to the one after it); the default, pairs, records an event
just before and one just after each call, as torch's own benchmarks do, so
the time from one call's end event to the next call's start event is in no
sample (gpubench --opt gemm.timing=pairs).
PyTorch's own CUBLASLT_WORKSPACE_SIZE (KiB) sets its cuBLASLt workspace;
CUBLASLT_WORKSPACE_SIZE=0 gets the kernels gpubench's search times "without
workspace" (e.g. fp8 at 8192^3: the `ssched` kernel, no memset per launch),
for a like-for-like comparison of one kernel. Figures print to two decimals.
"""
import itertools
import os
import statistics
import sys
import time

import torch

M = N = K = 8192
WARMUP = 5
REPS = 30


SAMPLES_LOG = os.environ.get("GEMM_REF_SAMPLES")  # file every timed call is appended to, in order
REST_S = int(os.environ.get("GEMM_REF_REST_MS", "0")) / 1000  # idle before each case's warm-up
SIDE_STREAM = os.environ.get("GEMM_REF_SIDE_STREAM") == "1"  # time on a created stream, as gpubench does
SETS = int(os.environ.get("GEMM_REF_SETS", "1"))  # operand sets the calls rotate among (gpubench's input sets)
TIMING = os.environ.get("GEMM_REF_TIMING", "pairs")  # pairs or chain
FP32_DRAW = os.environ.get("GEMM_REF_FP32_DRAW", "float64")  # what float32 operands are drawn in
if FP32_DRAW not in ("float64", "float32"):
    sys.exit(f"gemm_ref.py: GEMM_REF_FP32_DRAW={FP32_DRAW!r} is not float64 or float32")
if TIMING not in ("pairs", "chain"):
    sys.exit(f"gemm_ref.py: GEMM_REF_TIMING={TIMING!r} is not pairs or chain")
current_case = ""


def timed(fn):
    """Median seconds of REPS calls of fn, each between two CUDA events, on
    the default stream (GEMM_REF_SIDE_STREAM=1: on a created one); with
    GEMM_REF_SAMPLES set, appends "case,sample,seconds,tflops" lines to it;
    with GEMM_REF_REST_MS set, idles that long first (as gpubench's
    gemm.rest_ms does before its burst window)."""
    if SIDE_STREAM:
        torch.cuda.synchronize()  # the operands were filled on the default stream
        with torch.cuda.stream(torch.cuda.Stream()):
            return timed_on_current_stream(fn)
    return timed_on_current_stream(fn)


def timed_on_current_stream(fn):
    if REST_S > 0:
        torch.cuda.synchronize()
        time.sleep(REST_S)
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    if TIMING == "chain":
        fn()  # untimed, so that the first sample does not start on an idle stream
        chain = [torch.cuda.Event(enable_timing=True) for _ in range(REPS + 1)]
        chain[0].record()
        for e in chain[1:]:
            fn()
            e.record()
        starts, ends = chain[:-1], chain[1:]
    else:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(REPS)]
        for s, e in zip(starts, ends):
            s.record()
            fn()
            e.record()
    torch.cuda.synchronize()
    sec = [s.elapsed_time(e) * 1e-3 for s, e in zip(starts, ends)]
    if SAMPLES_LOG:
        with open(SAMPLES_LOG, "a") as f:
            for i, t in enumerate(sec):
                f.write(f"{current_case},{i},{t:.6e},{2.0 * M * N * K / t / 1e12:.1f}\n")
    return statistics.median(sec)


def set_tf32(on):
    """TF32 for float32 matmuls on or off, through whichever API this PyTorch has."""
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.set_float32_matmul_precision("high" if on else "highest")


def uniform(shape, dtype):
    """Uniform in [-1, 1): drawn in float64 for float64 and float32 operands
    (every mantissa bit random, as gpubench fills them; GEMM_REF_FP32_DRAW=float32
    draws float32 operands in float32), else in float32 and rounded."""
    wide = dtype == torch.float64 or (dtype == torch.float32 and FP32_DRAW == "float64")
    draw = torch.float64 if wide else torch.float32
    return (torch.rand(shape, device="cuda", dtype=draw) * 2 - 1).to(dtype)


def uniform_f32_values(shape, dtype):
    """float32 values widened to dtype: 29 of float64's 52 mantissa bits zero
    (the first version of this script filled fp64 operands so)."""
    return (torch.rand(shape, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype)


def matmul_case(dtype, tf32=False, fill=uniform, layout="tn"):
    """torch.matmul(a, b) with a M x K row-major and b K x N: in the TN layout
    b is an N x K row-major tensor transposed (cuBLAS then runs transa=T,
    transb=N, as gpubench's TN cases do); in NN b is K x N row-major."""
    def run():
        set_tf32(tf32)
        ops = itertools.cycle([(fill((M, K), dtype), fill((N, K), dtype).t() if layout == "tn" else fill((K, N), dtype))
                               for _ in range(SETS)])

        def call():
            a, b = next(ops)
            return torch.matmul(a, b)

        return timed(call)

    return run


def scaled_mm_case(b_dtype, fast_accum, out_dtype=torch.bfloat16, scale_result=None):
    """torch._scaled_mm with per-tensor A and B scales 0.25; an fp8 output
    (out_dtype float8_e4m3fn) also gets the result scale (gpubench's
    fp8e4m3_e4m3out cases: D scale 0.5)."""
    def run():
        # activations A (m x k, row-major) and weights B (n x k, row-major) used as
        # B^T (k x n, column-major): the TN layout Hopper's fp8 kernels need
        ops = itertools.cycle([((uniform((M, K), torch.float32) * 4).to(torch.float8_e4m3fn),
                                (uniform((N, K), torch.float32) * 4).to(b_dtype).t()) for _ in range(SETS)])
        sa = torch.tensor(0.25, device="cuda")
        sb = torch.tensor(0.25, device="cuda")
        sr = None if scale_result is None else torch.tensor(scale_result, device="cuda")

        def call():
            a, b = next(ops)
            return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, scale_result=sr, out_dtype=out_dtype,
                                    use_fast_accum=fast_accum)

        return timed(call)

    return run


def int_mm_case(b_column_major):
    def run():
        a = torch.randint(-8, 9, (M, K), device="cuda", dtype=torch.int8)
        if b_column_major:
            b = torch.randint(-8, 9, (N, K), device="cuda", dtype=torch.int8).t()
        else:
            b = torch.randint(-8, 9, (K, N), device="cuda", dtype=torch.int8)
        return timed(lambda: torch._int_mm(a, b))

    return run


CASES = [
    ("fp64", matmul_case(torch.float64)),
    ("fp64_nn", matmul_case(torch.float64, layout="nn")),
    ("fp64_f32values", matmul_case(torch.float64, fill=uniform_f32_values)),
    ("fp32", matmul_case(torch.float32, tf32=False)),
    ("fp32_nn", matmul_case(torch.float32, tf32=False, layout="nn")),
    ("tf32", matmul_case(torch.float32, tf32=True)),
    ("tf32_nn", matmul_case(torch.float32, tf32=True, layout="nn")),
    ("fp16", matmul_case(torch.float16)),
    ("fp16_nn", matmul_case(torch.float16, layout="nn")),
    ("bf16", matmul_case(torch.bfloat16)),
    ("bf16_nn", matmul_case(torch.bfloat16, layout="nn")),
    ("fp8e4m3_slowacc", scaled_mm_case(torch.float8_e4m3fn, False)),
    ("fp8e4m3_fastacc", scaled_mm_case(torch.float8_e4m3fn, True)),
    ("fp8e4m3xe5m2_slowacc", scaled_mm_case(torch.float8_e5m2, False)),
    ("fp8e4m3xe5m2_fastacc", scaled_mm_case(torch.float8_e5m2, True)),
    ("fp8e4m3_e4m3out_slowacc", scaled_mm_case(torch.float8_e4m3fn, False, torch.float8_e4m3fn, 0.5)),
    ("fp8e4m3_e4m3out_fastacc", scaled_mm_case(torch.float8_e4m3fn, True, torch.float8_e4m3fn, 0.5)),
    ("int8", int_mm_case(b_column_major=True)),
    ("int8_b_rowmajor", int_mm_case(b_column_major=False)),
]


def main():
    if not torch.cuda.is_available():
        print("# no CUDA device", file=sys.stderr)
        return 3
    print(f"# torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    print(f"# {M}x{N}x{K}, random operands, median of {REPS} products timed with CUDA events ({TIMING})")
    print("name,tflops")
    flops = 2.0 * M * N * K
    wanted = set(sys.argv[1:])
    unknown = wanted - {name for name, _ in CASES}
    if unknown:
        print(f"# unknown case(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    global current_case
    for name, run in CASES:
        if wanted and name not in wanted:
            continue
        current_case = name
        try:
            sec = run()
            print(f"{name},{flops / sec / 1e12:.2f}")
        except (RuntimeError, TypeError, AttributeError) as e:
            print(f"{name},")
            print(f"# {name}: {str(e).splitlines()[0]}")
        finally:
            torch.cuda.empty_cache()
        sys.stdout.flush()
    set_tf32(False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
