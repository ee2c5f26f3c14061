/* bench_fault: the test-only benchmark of deliberate failures (see
 * bench_fault.h). Each case goes through the same paths a real benchmark's
 * failure does: a cudaMalloc that cannot be satisfied (GB_E_OOM), a
 * precision the device lacks (GB_E_UNSUPPORTED, as bench_gemm reports for
 * fp8 below compute capability 8.9), and an illegal address in a kernel
 * (GB_E_CUDA with a sticky error: the runner stops, every finished row kept). */
#include "bench_fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cuda.h"
#include "gb_nvrtc.h"

const char *const gb_fault_cases[GB_FAULT_NCASES] = {"ok_before", "oom", "after_oom", "unsupported", "fault",
                                                     "after_fault"};

bool gb_fault_enabled(void) {
  const char *v = getenv("GPUBENCH_TEST_FAULT");
  return v && strcmp(v, "1") == 0;
}

#define FAULT_N (1u << 20) /* elements the checked fill writes */

typedef struct fault_state {
  gb_module mod;
  cudaKernel_t fill, oob;
  unsigned *buf;
} fault_state;

static gb_err fault_plan(const gb_run_ctx *ctx, gb_case_list *out) {
  (void)ctx;
  for (int i = 0; i < GB_FAULT_NCASES; i++) {
    gb_case c = gb_case_init(gb_fault_cases[i], "");
    c.param[0] = i;
    GB_TRY(gb_case_list_add(out, &c));
  }
  return GB_OK;
}

static gb_err fault_setup(gb_run_ctx *ctx) {
  fault_state *st = calloc(1, sizeof *st);
  if (!st) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err err = gb_module_load("fault.cu", NULL, 0, &st->mod);
  GB_TRY_ON(err, gb_module_kernel(&st->mod, "fault_fill", &st->fill));
  GB_TRY_ON(err, gb_module_kernel(&st->mod, "fault_out_of_bounds", &st->oob));
  if (!err) {
    cudaError_t e = cudaMalloc((void **)&st->buf, FAULT_N * sizeof *st->buf);
    if (e != cudaSuccess) err = gb_cuda_fail(e, "cudaMalloc(buf)", __FILE__, __LINE__);
  }
  if (err) {
    gb_module_unload(&st->mod);
    free(st);
    return err;
  }
  ctx->state = st;
  return GB_OK;
}

static void fault_teardown(gb_run_ctx *ctx) {
  fault_state *st = ctx->state;
  if (!st) return;
  cudaFree(st->buf); /* after a fault this only reports the lost context */
  gb_module_unload(&st->mod);
  free(st);
  ctx->state = NULL;
}

/* A fill the host checks element by element: one `ok` row. */
static gb_err fault_checked_fill(fault_state *st, const gb_case *c, unsigned salt, gb_rowset *out) {
  unsigned n = FAULT_N;
  void *args[] = {&st->buf, &n, &salt};
  GB_CUDA(cudaLaunchKernel((const void *)st->fill, gb_dim1(n / 256), gb_dim1(256), args, 0, 0));
  GB_CUDA(cudaGetLastError());
  unsigned *host = malloc(n * sizeof *host);
  if (!host) return gb_fail(GB_E_NOMEM, "out of memory");
  cudaError_t e = cudaMemcpy(host, st->buf, n * sizeof *host, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    free(host);
    return gb_cuda_fail(e, "cudaMemcpy(host, buf)", __FILE__, __LINE__);
  }
  unsigned wrong = 0;
  for (unsigned i = 0; i < n; i++) wrong += host[i] != ((i * 2654435761u) ^ salt);
  free(host);
  char detail[160];
  snprintf(detail, sizeof detail, "test-only benchmark: %u elements written by a kernel, %u wrong", n, wrong);
  gb_row r = gb_case_row(gb_bench_fault.name, c);
  r.metric = gb_bench_fault.metric;
  r.unit = gb_bench_fault.unit;
  r.value = wrong == 0 ? 1 : 0;
  r.samples = 1;
  r.status = wrong == 0 ? GB_STATUS_OK : GB_STATUS_INVALID;
  r.detail = detail;
  return gb_rowset_add(out, &r);
}

static gb_err fault_run(gb_run_ctx *ctx, const gb_case *c, gb_rowset *out) {
  fault_state *st = ctx->state;
  const gb_device_info *d = ctx->dev;
  switch (c->param[0]) {
  case 1: { /* twice the device's memory: cudaMalloc fails, the context stays */
    void *p = NULL;
    size_t bytes = (size_t)d->mem_bytes * 2;
    GB_CUDA(cudaMalloc(&p, bytes));
    cudaFree(p);
    return gb_fail(GB_E_INTERNAL, "fault: cudaMalloc of %zu bytes succeeded on a %zu-byte device", bytes,
                   (size_t)d->mem_bytes);
  }
  case 3: /* a precision this device does not have (none has "fp2") */
    return gb_fail(GB_E_UNSUPPORTED,
                   "fault: fp2 tensor-core GEMM needs compute capability 99.0 or newer; this device is %d.%d "
                   "(test-only case)",
                   d->cc_major, d->cc_minor);
  case 4: { /* an out-of-bounds write: illegal address, the context is lost */
    unsigned n = FAULT_N;
    void *args[] = {&st->buf, &n};
    GB_CUDA(cudaLaunchKernel((const void *)st->oob, gb_dim1(1), gb_dim1(32), args, 0, 0));
    GB_CUDA(cudaDeviceSynchronize());
    return gb_fail(GB_E_INTERNAL, "fault: the out-of-bounds write did not fault");
  }
  default: /* ok_before, after_oom, after_fault */
    return fault_checked_fill(st, c, (unsigned)c->param[0] * 0x9E3779B9u, out);
  }
}

const gb_bench gb_bench_fault = {
    .name = "fault",
    .summary = "test-only: out of memory, an unsupported precision, a faulting kernel (GPUBENCH_TEST_FAULT=1)",
    .metric = "check",
    .unit = "",
    .plan = fault_plan,
    .setup = fault_setup,
    .run = fault_run,
    .teardown = fault_teardown,
};
