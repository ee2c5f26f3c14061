// fault.cu: kernels of the test-only `fault` benchmark (bench/bench_fault.c,
// enabled by GPUBENCH_TEST_FAULT=1): a checked fill, and a deliberate
// out-of-bounds write that faults (an illegal address: the CUDA context is
// lost, as with a real bug in a kernel).

extern "C" __global__ void fault_fill(unsigned *p, unsigned n, unsigned salt) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (i * 2654435761u) ^ salt;
}

// Writes 2^38 elements (1 TiB) past the end of p: far outside any
// allocation, so the write faults instead of corrupting memory.
extern "C" __global__ void fault_out_of_bounds(unsigned *p, unsigned n) {
  unsigned long long far = (1ull << 38) + n + threadIdx.x;
  p[far] = 0xDEADBEEFu;
}
