/* ktrace: a CUPTI activity tracer loaded into any CUDA process through the
 * driver's injection hook, so that gpubench's process and PyTorch's can be
 * traced by one tool. It records every kernel, memset and memcpy with the
 * GPU's start and end timestamps (ns), as they ran in the real stream (no
 * serialisation: CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), and writes them as
 * CSV when the process exits:
 *
 *   CUDA_INJECTION64_PATH=.devbuild/libgb_ktrace.so GB_KTRACE_OUT=trace.csv PROGRAM ...
 *
 * A "%p" in GB_KTRACE_OUT becomes the process id, for programs that start
 * other CUDA processes (the collective's ranks). Columns:
 * kind,stream,start_ns,end_ns,grid,block,cluster,name. Kernel
 * durations and the gaps between consecutive launches of one kernel come
 * from tools/ktrace/ktrace_gaps.py. Without GB_KTRACE_OUT it enables
 * nothing. Diagnostics go to stderr with a "ktrace:" prefix; a process that
 * is killed loses its trace (records are flushed at exit). Built as
 * libgb_ktrace.so by the lab build (cmake -DGB_TOOLS=ON, where the toolkit
 * has CUPTI; tools/CMakeLists.txt), which scripts/build-for-device.sh
 * --tools makes and carries. */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KTRACE_BUF (8u << 20)

static FILE *ktrace_out;
static unsigned long ktrace_dropped;

static void ktrace_warn(const char *what, CUptiResult r) {
  const char *msg = NULL;
  if (cuptiGetResultString(r, &msg) != CUPTI_SUCCESS || !msg) msg = "unknown CUPTI error";
  fprintf(stderr, "ktrace: %s: %s\n", what, msg);
}

static void CUPTIAPI ktrace_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  /* CUPTI wants 8-byte alignment */
  *buffer = aligned_alloc(8, KTRACE_BUF);
  *size = *buffer ? KTRACE_BUF : 0;
  *max_records = 0;
}

/* Kernel names may hold commas (templates): the field is quoted, with any
 * quote doubled, as RFC 4180 has it. */
static void ktrace_put_name(const char *name) {
  fputc('"', ktrace_out);
  for (const char *p = name ? name : ""; *p; p++) {
    if (*p == '"') fputc('"', ktrace_out);
    fputc(*p, ktrace_out);
  }
  fputs("\"\n", ktrace_out);
}

/* A memset or memcpy: no grid, block or cluster; its kind is its name. */
static void ktrace_put_copy(const char *kind, uint32_t stream, uint64_t start, uint64_t end) {
  fprintf(ktrace_out, "%s,%u,%llu,%llu,,,,", kind, stream, (unsigned long long)start, (unsigned long long)end);
  ktrace_put_name(kind);
}

static void CUPTIAPI ktrace_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                             size_t valid) {
  (void)ctx;
  (void)stream;
  (void)size;
  CUpti_Activity *rec = NULL;
  while (ktrace_out && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
      fprintf(ktrace_out, "kernel,%u,%llu,%llu,%dx%dx%d,%dx%dx%d,%ux%ux%u,", k->streamId,
              (unsigned long long)k->start, (unsigned long long)k->end, k->gridX, k->gridY, k->gridZ, k->blockX,
              k->blockY, k->blockZ, k->clusterX, k->clusterY, k->clusterZ);
      ktrace_put_name(k->name);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
      ktrace_put_copy("memset", m->streamId, m->start, m->end);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
      ktrace_put_copy("memcpy", m->streamId, m->start, m->end);
      break;
    }
    default:
      break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) ktrace_dropped += dropped;
  free(buffer);
}

static void ktrace_finish(void) {
  CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS) ktrace_warn("flush", r);
  if (!ktrace_out) return;
  if (ktrace_dropped) fprintf(stderr, "ktrace: %lu records dropped\n", ktrace_dropped);
  if (fclose(ktrace_out) != 0) perror("ktrace: closing the trace");
  ktrace_out = NULL;
}

/* The driver calls this once, at cuInit, when CUDA_INJECTION64_PATH names
 * this library. Returns 1 on success, as the injection interface wants. */
int InitializeInjection(void);
int InitializeInjection(void) {
  const char *path = getenv("GB_KTRACE_OUT");
  if (!path || !*path) return 1;
  char name[4096];
  size_t n = 0;
  for (const char *p = path; *p && n + 24 < sizeof name; p++) {
    if (p[0] == '%' && p[1] == 'p') {
      n += (size_t)snprintf(name + n, sizeof name - n, "%ld", (long)getpid());
      p++;
    } else {
      name[n++] = *p;
    }
  }
  name[n] = '\0';
  ktrace_out = fopen(name, "w");
  if (!ktrace_out) {
    fprintf(stderr, "ktrace: GB_KTRACE_OUT %s: ", name);
    perror(NULL);
    return 1;
  }
  fputs("kind,stream,start_ns,end_ns,grid,block,cluster,name\n", ktrace_out);
  CUptiResult r = cuptiActivityRegisterCallbacks(ktrace_buffer_requested, ktrace_buffer_completed);
  if (r != CUPTI_SUCCESS) {
    ktrace_warn("registering the buffers", r);
    return 1;
  }
  static const struct {
    CUpti_ActivityKind kind;
    const char *name;
  } kinds[] = {{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernels"},
               {CUPTI_ACTIVITY_KIND_MEMSET, "memsets"},
               {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpys"}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    r = cuptiActivityEnable(kinds[i].kind);
    if (r != CUPTI_SUCCESS) ktrace_warn(kinds[i].name, r);
  }
  atexit(ktrace_finish);
  return 1;
}
