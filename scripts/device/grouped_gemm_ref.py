#!/usr/bin/env python3
"""PyTorch reference for gpubench's grouped GEMM (case grouped_<precision>):
the bar at the same MoE expert shapes.

Every shape is G groups of M x N x K in the TN layout gpubench runs: A_g the
M tokens of expert g (K-major), B_g its N x K weights (K-major, used
transposed), D_g = A_g B_g^T, operands random (never zeros). Timed as
scripts/device/gemm_ref.py times (its `timed`: warm-up, then 30 calls each
between CUDA events or in one chain, GEMM_REF_TIMING; the median;
GEMM_REF_REST_MS idle first); TFLOP/s = 2 M N K G / s / 1e12.

  bf16                torch._grouped_mm, in MoE form: A (G*M) x K with
                      offsets every M rows, B G x K x N (a transposed view of
                      G x N x K); where it refuses, the same products as one
                      torch.bmm (cuBLAS strided batched)
  fp16                torch.bmm: torch._grouped_mm's grouped kernel on Hopper
                      is bf16's (other types take a per-group fallback)
  fp8e4m3_fastacc,    torch._scaled_grouped_mm, e4m3 operands in [-4, 4), the
  fp8e4m3_slowacc     same MoE form, row-wise float32 scales of 0.25 (its
                      only scaling on Hopper; gpubench's are per tensor) and
                      a bf16 output, use_fast_accum as the name says

Which API ran is the last column. Usage:
  grouped_gemm_ref.py [--shapes GxMxNxK:...] [--precs bf16:fp16:...]
      prints comment lines (#) and the CSV `case,groups,m,n,k,tflops,api`
      (case as gpubench names it, grouped_bf16); a call the installed PyTorch
      cannot make prints an empty tflops and the reason as a comment.
      Default: gpubench's quick grouped shapes, bf16 and fp8e4m3_fastacc.
  grouped_gemm_ref.py --table CSV TXT
      the side-by-side table of scripts/device/gemm_grouped_interleave.sh:
      per case and shape the median over the rounds of gpubench's rate (its
      rows in the results CSV, the groups column read by name) and of
      PyTorch's (TXT: lines "round,case,groups,m,n,k,tflops,api"), and their
      ratio.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

QUICK_SHAPES = "8x512x14336x4096:256x128x2048x7168:128x512x768x2048"
QUICK_PRECS = "bf16:fp8e4m3_fastacc"


def parse_shapes(text):
    shapes = []
    for item in text.split(":"):
        g, m, n, k = (int(v) for v in item.split("x"))
        shapes.append((g, m, n, k))
    return shapes


def operands(torch, g, m, n, k, dtype, scale=1.0):
    """A as (G*M) x K and B as G x K x N (a view of G x N x K, K-major), with
    the MoE offsets (the end row of each group's tokens)."""
    import gemm_ref  # after sys.path: its uniform() draws as gpubench fills

    draw = torch.float32 if dtype in (torch.float8_e4m3fn,) else dtype
    # one group at a time: drawing all of B at once in float32 needed 28 GiB
    # more than an H100 had left at DeepSeek-V3's fp8 shapes (512 and 2048
    # tokens per expert)
    a = torch.empty((g * m, k), device="cuda", dtype=dtype)
    w = torch.empty((g, n, k), device="cuda", dtype=dtype)
    for i in range(g):
        a[i * m:(i + 1) * m] = (gemm_ref.uniform((m, k), draw) * scale).to(dtype)
        w[i] = (gemm_ref.uniform((n, k), draw) * scale).to(dtype)
    b = w.transpose(-2, -1)
    offs = torch.arange(m, g * m + 1, m, device="cuda", dtype=torch.int32)
    return a, b, offs


def grouped_16(torch, g, m, n, k, dtype):
    """(call, api, notes): bf16 torch._grouped_mm where it runs, else (and
    for fp16) torch.bmm."""
    a, b, offs = operands(torch, g, m, n, k, dtype)
    notes = []
    if dtype == torch.bfloat16 and hasattr(torch, "_grouped_mm"):
        try:
            torch._grouped_mm(a, b, offs=offs)
            torch.cuda.synchronize()
            return (lambda: torch._grouped_mm(a, b, offs=offs)), "torch._grouped_mm", notes
        except (RuntimeError, TypeError) as e:
            notes.append(f"torch._grouped_mm refused: {str(e).splitlines()[0]}")
    a3 = a.view(g, m, k)
    return (lambda: torch.bmm(a3, b)), "torch.bmm", notes


def grouped_fp8(torch, g, m, n, k, fast):
    a, b, offs = operands(torch, g, m, n, k, torch.float8_e4m3fn, scale=4.0)
    sa = torch.full((g * m,), 0.25, device="cuda", dtype=torch.float32)
    sb = torch.full((g, n), 0.25, device="cuda", dtype=torch.float32)

    def call():
        return torch._scaled_grouped_mm(a, b, sa, sb, offs=offs, out_dtype=torch.bfloat16, use_fast_accum=fast)

    call()
    torch.cuda.synchronize()
    return call, "torch._scaled_grouped_mm", []


def run_case(torch, prec, shape):
    g, m, n, k = shape
    if prec in ("bf16", "fp16"):
        return grouped_16(torch, g, m, n, k, torch.bfloat16 if prec == "bf16" else torch.float16)
    if prec in ("fp8e4m3_fastacc", "fp8e4m3_slowacc"):
        return grouped_fp8(torch, g, m, n, k, prec.endswith("fastacc"))
    raise ValueError(f"no reference for precision {prec}")


def measure(shapes, precs):
    import torch

    import gemm_ref

    if not torch.cuda.is_available():
        print("# no CUDA device", file=sys.stderr)
        return 3
    print(f"# torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    print(f"# median of {gemm_ref.REPS} calls timed with CUDA events ({gemm_ref.TIMING})")
    print("case,groups,m,n,k,tflops,api")
    for shape in shapes:
        for prec in precs:
            g, m, n, k = shape
            name = f"grouped_{prec}"
            gemm_ref.current_case = name
            try:
                call, api, notes = run_case(torch, prec, shape)
                for note in notes:
                    print(f"# {name} {g}x{m}x{n}x{k}: {note}")
                sec = gemm_ref.timed(call)
                print(f"{name},{g},{m},{n},{k},{2.0 * g * m * n * k / sec / 1e12:.2f},{api}")
            except (RuntimeError, TypeError, AttributeError, ValueError) as e:
                print(f"{name},{g},{m},{n},{k},,none")
                print(f"# {name} {g}x{m}x{n}x{k}: {str(e).splitlines()[0]}")
            finally:
                torch.cuda.empty_cache()
            sys.stdout.flush()
    return 0


def table(csv_path, txt_path):
    ours, status = {}, {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            if r["benchmark"] != "gemm" or r["metric"] != "tflops" or not r.get("groups"):
                continue
            key = (r["case"], int(r["groups"]), int(r["m"]), int(r["n"]), int(r["k"]))
            status.setdefault(key, []).append(r["status"])
            if r["status"] in ("ok", "throttled") and r["value"]:
                ours.setdefault(key, []).append(float(r["value"]))
    ref, api = {}, {}
    with open(txt_path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) == 8 and p[6]:
                key = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
                ref.setdefault(key, []).append(float(p[6]))
                api[key] = p[7]
    print("| case | G x M x N x K | gpubench | PyTorch | ratio | PyTorch API | gpubench rounds | PyTorch rounds "
          "| status |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(set(ours) | set(ref), key=lambda t: (t[1:], t[0])):
        a, b = ours.get(key, []), ref.get(key, [])
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        ratio = f"{ma / mb:.3f}" if ma and mb else "-"
        st = status.get(key, [])
        sts = ", ".join(f"{s} {st.count(s)}" for s in sorted(set(st)))
        shape = "x".join(str(v) for v in key[1:])
        print(f"| {key[0]} | {shape} | {f'{ma:.1f}' if ma else '-'} | {f'{mb:.1f}' if mb else '-'} | {ratio} "
              f"| {api.get(key, '-')} | {' '.join(f'{v:.1f}' for v in a)} | {' '.join(f'{v:.1f}' for v in b)} "
              f"| {sts} |")
    return 0


def main(argv):
    if argv[:1] == ["--table"]:
        if len(argv) != 3:
            print(__doc__, file=sys.stderr)
            return 2
        return table(argv[1], argv[2])
    shapes, precs = QUICK_SHAPES, QUICK_PRECS
    args = list(argv)
    while args:
        opt = args.pop(0)
        if opt in ("--shapes", "--precs") and args:
            if opt == "--shapes":
                shapes = args.pop(0)
            else:
                precs = args.pop(0)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    return measure(parse_shapes(shapes), precs.split(":"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
