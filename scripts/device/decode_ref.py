#!/usr/bin/env python3
"""PyTorch peer of the decode benchmark: torch's own launch overhead and its
GEMV-class products at the shapes gpubench's decode cases measure.

Runs on the GPU machine (scripts/device/decode_interleave.sh alternates it
with `gpubench run --bench decode`). Every figure is the median of timed
samples, each between two CUDA events, after warm-up:

  launch        a one-element int32 tensor's in-place add (x.add_(1): one
                elementwise kernel a call), LAUNCHES calls between two events;
                time_us = the sample's time / LAUNCHES: what a framework's
                eager launch costs, Python dispatch included
  launch_graph  the same LAUNCHES calls captured in one torch.cuda.CUDAGraph
                and replayed; time_us = the replay's time / LAUNCHES
  gemv_bf16     torch.nn.functional.linear(x, w): x batch x k, w n x k bf16
                (gpubench's TN layout), at every batch and projection of
                gpubench's full profile; time_us and tflops = 2 m n k / s
  kv_read       (gpubench's decode attention) torch's
                scaled_dot_product_attention at one query per sequence and
                KV head, bf16, at gpubench's full kv_read shapes; gbps =
                K and V bytes / s, the figure beside gpubench's

Each launch case checks its count (the tensor ends at the number of adds);
each gemv compares a few columns with an fp64 product of the same inputs.
The weights rotate among enough sets to pass three L2 sizes, as gpubench's
do. Prints `#` comments and CSV lines `case,m,n,k,bytes,metric,value` on
stdout; a case torch cannot run prints a comment with the reason.
Arguments, if any, narrow the cases: `decode_ref.py launch gemv_bf16`.
"""
import math
import statistics
import sys

import torch

LAUNCHES = 1000
SAMPLES = 20
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
# (model, projection, n, k): gpubench's gb_decode_projs (bench/decode/decode_pure.c)
PROJS = [("llama-3-8b", "attn_out", 4096, 4096), ("llama-3-8b", "mlp_up", 14336, 4096),
         ("llama-3-8b", "mlp_down", 4096, 14336), ("llama-3-70b", "attn_out", 8192, 8192),
         ("llama-3-70b", "mlp_up", 28672, 8192), ("llama-3-70b", "mlp_down", 8192, 28672)]
# (batch, kv_heads, seq): gpubench's full kv_read shapes
KV = [(1, 8, 4096), (1, 8, 32768), (1, 8, 131072), (8, 8, 8192), (32, 8, 2048), (64, 8, 8192), (128, 8, 4096),
      (256, 8, 4096)]
HEAD_DIM = 128


def emit(case, m, n, k, nbytes, metric, value):
    def f(v):
        return "" if v is None else str(v)
    print(f"{case},{f(m)},{f(n)},{f(k)},{f(nbytes)},{metric},{value:.4f}", flush=True)


def timed(fn, ops, samples=SAMPLES, warmup=3):
    """Median seconds per operation: samples of `ops` operations (fn runs them all), events around each."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(samples):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3 / ops)
    return statistics.median(times)


def launch_cases(want):
    x = torch.zeros(1, dtype=torch.int32, device="cuda")

    def plain():
        for _ in range(LAUNCHES):
            x.add_(1)
    if "launch" in want:
        x.zero_()
        t = timed(plain, LAUNCHES)
        runs = (3 + SAMPLES) * LAUNCHES
        got = int(x.item())
        if got != runs:
            print(f"# launch: check failed: {got} adds counted of {runs}")
        else:
            emit("launch", None, None, None, None, "time_us", t * 1e6)
    if "launch_graph" in want:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            plain()  # warm the kernel on the side stream before capture, as torch's docs do
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            plain()
        x.zero_()
        t = timed(g.replay, LAUNCHES)
        runs = (3 + SAMPLES) * LAUNCHES
        got = int(x.item())
        if got != runs:
            print(f"# launch_graph: check failed: {got} adds counted of {runs}")
        else:
            emit("launch_graph", None, None, None, None, "time_us", t * 1e6)


def sets_for(nbytes, l2):
    return max(1, min(8, math.ceil(3 * l2 / nbytes))) if nbytes < 3 * l2 else 1


def gemv_case(m, n, k, l2):
    sets = sets_for((n * k + m * k) * 2, l2)
    ws = [torch.rand(n, k, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(torch.bfloat16) for _ in range(sets)]
    xs = [torch.rand(m, k, device="cuda", dtype=torch.float32).mul_(2).sub_(1).to(torch.bfloat16) for _ in range(sets)]
    it = [0]
    est = (n * k + m * k + m * n) * 2 / 3e12 + 3e-6
    ops = max(1, min(200, math.ceil(100e-6 / est)))

    def run():
        for _ in range(ops):
            i = it[0] % sets
            it[0] += 1
            torch.nn.functional.linear(xs[i], ws[i])
    t = timed(run, ops)
    d = torch.nn.functional.linear(xs[0], ws[0]).double()
    cols = torch.linspace(0, n - 1, min(16, n), device="cuda").long()
    ref = xs[0].double() @ ws[0][cols].double().T
    err = (d[:, cols] - ref).norm() / ref.norm()
    if not err <= 1e-2:
        print(f"# gemv_bf16 {m}x{n}x{k}: check failed: rel_err {err:.3g}")
        return
    emit("gemv_bf16", m, n, k, None, "time_us", t * 1e6)
    emit("gemv_bf16", m, n, k, None, "tflops", 2 * m * n * k / t / 1e12)


def kv_case(batch, heads, seq, l2):
    nbytes = 2 * batch * heads * seq * HEAD_DIM * 2
    sets = sets_for(nbytes, l2)
    shape = (batch, heads, seq, HEAD_DIM)
    ks = [torch.rand(shape, device="cuda", dtype=torch.bfloat16).mul_(2).sub_(1) for _ in range(sets)]
    vs = [torch.rand(shape, device="cuda", dtype=torch.bfloat16).mul_(2).sub_(1) for _ in range(sets)]
    q = torch.rand((batch, heads, 1, HEAD_DIM), device="cuda", dtype=torch.bfloat16).mul_(6).sub_(3)
    it = [0]
    ops = max(1, min(200, math.ceil(100e-6 / (nbytes / 3e12 + 4e-6))))

    def run():
        for _ in range(ops):
            i = it[0] % sets
            it[0] += 1
            torch.nn.functional.scaled_dot_product_attention(q, ks[i], vs[i])
    t = timed(run, ops)
    emit("kv_read", batch, seq, heads * HEAD_DIM, nbytes, "gbps", nbytes / t / 1e9)
    emit("kv_read", batch, seq, heads * HEAD_DIM, nbytes, "time_us", t * 1e6)


def main():
    want = set(sys.argv[1:]) or {"launch", "launch_graph", "gemv_bf16", "kv_read"}
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    print(f"# torch {torch.__version__} on {props.name}, L2 {l2 >> 20} MiB")
    print("case,m,n,k,bytes,metric,value")
    launch_cases(want)
    if "gemv_bf16" in want:
        for _, _, n, k in PROJS:
            for m in BATCHES:
                gemv_case(m, n, k, l2)
                torch.cuda.empty_cache()
    if "kv_read" in want:
        for batch, heads, seq in KV:
            try:
                kv_case(batch, heads, seq, l2)
            except torch.OutOfMemoryError as e:
                print(f"# kv_read {batch}x{heads}x{seq}: {e}")
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
