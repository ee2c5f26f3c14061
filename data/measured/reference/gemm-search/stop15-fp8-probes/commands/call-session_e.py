import statistics as st, torch, time, sys
M=N=K=8192
a=((torch.rand((M,K),device="cuda")*2-1)*4).to(torch.float8_e4m3fn)
b=((torch.rand((N,K),device="cuda")*2-1)*4).to(torch.float8_e4m3fn).t()
s=torch.tensor(0.25,device="cuda")
f=lambda: torch._scaled_mm(a,b,scale_a=s,scale_b=s,out_dtype=torch.bfloat16,use_fast_accum=False)
tf=lambda t: 2*M*N*K/t/1e12
def pairs():
    for _ in range(5): f()
    ss=[torch.cuda.Event(enable_timing=True) for _ in range(30)]; ee=[torch.cuda.Event(enable_timing=True) for _ in range(30)]
    for x,y in zip(ss,ee): x.record(); f(); y.record()
    torch.cuda.synchronize(); return st.median([x.elapsed_time(y)*1e-3 for x,y in zip(ss,ee)])
def chain():
    for _ in range(5): f()
    ev=[torch.cuda.Event(enable_timing=True) for _ in range(31)]
    ev[0].record()
    for i in range(30): f(); ev[i+1].record()
    torch.cuda.synchronize(); return st.median([ev[i].elapsed_time(ev[i+1])*1e-3 for i in range(30)])
def prof():
    for _ in range(5): f()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        for _ in range(30): f()
        torch.cuda.synchronize()
    ev=[e for e in p.events() if e.device_type==torch.autograd.DeviceType.CUDA and e.device_time_total>500]
    ev.sort(key=lambda e:e.time_range.start)
    d=[e.time_range.end-e.time_range.start for e in ev]
    g=[ev[i+1].time_range.start-ev[i].time_range.end for i in range(len(ev)-1)]
    return len(ev), st.median(d), st.median(g) if g else -1, ev[0].name[:100] if ev else ""
for r in range(3):
    print("pairs %.1f  chain %.1f"%(tf(pairs()),tf(chain())), flush=True)
    n,d,g,name=prof(); print("profiler: n %d kernel med %.2f us (%.1f TFLOP/s) gap med %.2f us %s"%(n,d,tf(d*1e-6),g,name), flush=True)
