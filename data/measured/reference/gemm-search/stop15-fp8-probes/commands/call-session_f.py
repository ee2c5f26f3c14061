import statistics as st, torch
M=N=K=8192
a=((torch.rand((M,K),device="cuda")*2-1)*4).to(torch.float8_e4m3fn)
b=((torch.rand((N,K),device="cuda")*2-1)*4).to(torch.float8_e4m3fn).t()
s=torch.tensor(0.25,device="cuda")
f=lambda: torch._scaled_mm(a,b,scale_a=s,scale_b=s,out_dtype=torch.bfloat16,use_fast_accum=False)
tf=lambda t: 2*M*N*K/t/1e12
E=lambda: torch.cuda.Event(enable_timing=True)
def pairs():
    for _ in range(5): f()
    ss=[E() for _ in range(30)]; ee=[E() for _ in range(30)]
    for x,y in zip(ss,ee): x.record(); f(); y.record()
    torch.cuda.synchronize()
    return tf(st.median([x.elapsed_time(y)*1e-3 for x,y in zip(ss,ee)])), tf(ss[0].elapsed_time(ee[-1])*1e-3/30)
def chain():
    for _ in range(5): f()
    ev=[E() for _ in range(31)]; ev[0].record()
    for i in range(30): f(); ev[i+1].record()
    torch.cuda.synchronize()
    return tf(st.median([ev[i].elapsed_time(ev[i+1])*1e-3 for i in range(30)])), tf(ev[0].elapsed_time(ev[30])*1e-3/30)
def block():
    for _ in range(5): f()
    x,y=E(),E(); x.record()
    for i in range(30): f()
    y.record(); torch.cuda.synchronize(); return tf(x.elapsed_time(y)*1e-3/30)
for r in range(4):
    p,pw=pairs(); c,cw=chain(); bl=block()
    print("torch pairs median %.1f wall %.1f | chain median %.1f wall %.1f | block %.1f"%(p,pw,c,cw,bl), flush=True)
