#!/usr/bin/env python3
"""PyTorch reference for the membw benchmark, run on the device machine in the
same session as `gpubench run --bench membw`.

Measures with CUDA events (warm-up, then the median of repetitions):
  copy_8GiB       dst.copy_(src), 8 GiB per tensor (fp32)      bytes = read + write = 2 x 8 GiB
  copy_2^28_f64   dst.copy_(src), 2^28 doubles (2 GiB each)     bytes = 2 x 2 GiB
  triad_2^28_f64  torch.add(b, c, alpha=0.4, out=a)             bytes = 3 x 2 GiB (BabelStream)
  dot_2^28_f64    torch.dot(a, b)                               bytes = 2 x 2 GiB
GB/s = bytes / seconds / 1e9. Inputs are random (never zeros). Prints CSV.
"""
import statistics
import sys

import torch

GIB = 1 << 30
WARMUP = 3
REPS = 20


def timed(fn, reps=REPS, warmup=WARMUP):
    """Seconds per call of fn, one sample per call, CUDA events around each."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        out.append(start.elapsed_time(stop) * 1e-3)
    return out


def row(name, bytes_per_array, bytes_moved, secs):
    rates = [bytes_moved / s / 1e9 for s in secs]
    print(f"{name},{bytes_per_array},{bytes_moved},{statistics.median(rates):.1f},"
          f"{min(rates):.1f},{max(rates):.1f},{len(rates)}", flush=True)


def main():
    if not torch.cuda.is_available():
        print("membw_ref: no CUDA device visible to torch", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    print(f"# {props.name}, torch {torch.__version__}, CUDA {torch.version.cuda}", flush=True)
    print("name,bytes_per_array,bytes_moved,gbps_median,gbps_min,gbps_max,reps")

    # copy_ of 8 GiB (the PyTorch bar: 4284 GB/s on an H200)
    n = 8 * GIB // 4
    src = torch.rand(n, device=dev, dtype=torch.float32) + 1.0
    dst = torch.empty_like(src)
    row("copy_8GiB", 8 * GIB, 2 * 8 * GIB, timed(lambda: dst.copy_(src)))
    assert torch.equal(dst[:: 1 << 20], src[:: 1 << 20]), "copy_ check failed"
    del src, dst
    torch.cuda.empty_cache()

    # BabelStream's size: 2^28 doubles per array
    n = 1 << 28
    nbytes = n * 8
    a = torch.rand(n, device=dev, dtype=torch.float64) + 1.0
    b = torch.rand(n, device=dev, dtype=torch.float64) + 1.0
    c = torch.rand(n, device=dev, dtype=torch.float64) + 1.0
    d = torch.empty_like(a)
    row("copy_2^28_f64", nbytes, 2 * nbytes, timed(lambda: d.copy_(a)))
    del d
    row("triad_2^28_f64", nbytes, 3 * nbytes, timed(lambda: torch.add(b, c, alpha=0.4, out=a)))
    ref = b[:: 1 << 16] + 0.4 * c[:: 1 << 16]
    assert torch.allclose(a[:: 1 << 16], ref, rtol=1e-15, atol=0), "triad check failed"
    row("dot_2^28_f64", nbytes, 2 * nbytes, timed(lambda: torch.dot(a, b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
