#!/usr/bin/env python3
"""PyTorch reference for gpubench's collective benchmark (run on the GPU machine).

torch.distributed over NCCL, one process per GPU (torch.multiprocessing spawn),
initialised through a file:// store in a private temporary directory. World
size = the number of visible GPUs (or --world). Each size: 5 warm-up ops, then
10 samples of 20 back-to-back ops timed with CUDA events on every rank; a
sample's time is the slowest rank's (all_reduce MAX of the per-rank times),
the value the median over samples: the same method as gpubench.

Figures as nccl-tests (and gpubench) define them: algbw = S / time, busbw =
algbw * factor, S = count*typesize (all_reduce, broadcast) or
count*typesize*world (all_gather, reduce_scatter; count per rank).

torch's all_reduce and broadcast are in-place (compare with gpubench's
*_inplace cases); all_gather_into_tensor and reduce_scatter_tensor are
out-of-place. On one GPU an in-place all_reduce moves nothing, so the script
also times a device-to-device copy of the same size (`copy_d2d`): the work of
NCCL's one-rank out-of-place all_reduce and its floor (compare with
gpubench's all_reduce_outofplace at gpu_count 1 and nccl-tests -g 1).

Prints CSV to stdout: collective,dtype,world,bytes,time_us,algbw_gbps,busbw_gbps.
Leaves NCCL's environment as the machine sets it.
"""
import argparse
import os
import statistics
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def factor(coll, n):
    if coll == "all_reduce":
        return 2.0 * (n - 1) / n
    if coll in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    return 1.0  # broadcast, copy_d2d


def sizes(lo, hi, step):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= step
    if out[-1] != hi:
        out.append(hi)
    return out


def op_for(coll, count, n, dtype, dev):
    """Returns (callable, S bytes) for one operation of `coll` with `count` elements per rank."""
    ts = torch.tensor([], dtype=dtype).element_size()
    if coll == "all_reduce":
        x = torch.randint(-4, 5, (count,), device=dev).to(dtype)
        return (lambda: dist.all_reduce(x)), count * ts
    if coll == "broadcast":
        x = torch.randint(-4, 5, (count,), device=dev).to(dtype)
        return (lambda: dist.broadcast(x, 0)), count * ts
    if coll == "all_gather":
        x = torch.randint(-4, 5, (count,), device=dev).to(dtype)
        y = torch.empty(count * n, dtype=dtype, device=dev)
        return (lambda: dist.all_gather_into_tensor(y, x)), count * ts * n
    if coll == "reduce_scatter":
        x = torch.randint(-4, 5, (count * n,), device=dev).to(dtype)
        y = torch.empty(count, dtype=dtype, device=dev)
        return (lambda: dist.reduce_scatter_tensor(y, x)), count * ts * n
    if coll == "copy_d2d":
        x = torch.randint(-4, 5, (count,), device=dev).to(dtype)
        y = torch.empty_like(x)
        return (lambda: y.copy_(x)), count * ts
    raise ValueError(coll)


def worker(rank, world, store, args):
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method="file://" + store, rank=rank, world_size=world, device_id=dev)
    dtype = DTYPES[args.dtype]
    ts = torch.tensor([], dtype=dtype).element_size()
    if rank == 0:
        print(f"# torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
              f"world {world}, {torch.cuda.get_device_name(0)}", flush=True)
        print("collective,dtype,world,bytes,time_us,algbw_gbps,busbw_gbps", flush=True)
    colls = args.colls.split(",")
    for coll in colls:
        for size in sizes(args.min, args.max, args.factor):
            count = size // ts if coll in ("all_reduce", "broadcast", "copy_d2d") else size // ts // world
            if count == 0:
                continue
            op, s_bytes = op_for(coll, count, world, dtype, dev)
            for _ in range(args.warmup):
                op()
            torch.cuda.synchronize()
            times = torch.zeros(args.samples, dtype=torch.float64, device=dev)
            for k in range(args.samples):
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(args.ops):
                    op()
                stop.record()
                stop.synchronize()
                times[k] = start.elapsed_time(stop) * 1e-3 / args.ops  # seconds per op on this rank
            dist.all_reduce(times, op=dist.ReduceOp.MAX)  # the slowest rank's time per sample
            t = statistics.median(times.tolist())
            algbw = s_bytes / t / 1e9
            if rank == 0:
                print(f"{coll},{args.dtype},{world},{s_bytes},{t * 1e6:.3f},{algbw:.3f},"
                      f"{algbw * factor(coll, world):.3f}", flush=True)
            del op
            torch.cuda.empty_cache()
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--world", type=int, default=0, help="processes, one per GPU (default: every visible GPU)")
    p.add_argument("--colls", default="all_reduce,copy_d2d",
                   help="comma list of all_reduce, reduce_scatter, all_gather, broadcast, copy_d2d")
    p.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    p.add_argument("--min", type=int, default=8)
    p.add_argument("--max", type=int, default=1 << 30)
    p.add_argument("--factor", type=int, default=2)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--samples", type=int, default=10)
    p.add_argument("--ops", type=int, default=20)
    args = p.parse_args()
    ngpu = torch.cuda.device_count()
    if ngpu == 0:
        print("collective_ref: no GPU", file=sys.stderr)
        return 3
    world = args.world or ngpu
    if world > ngpu:
        print(f"collective_ref: --world {world} needs {world} GPUs; {ngpu} visible", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="collective_ref.") as d:
        mp.spawn(worker, args=(world, os.path.join(d, "store"), args), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
