/* gb_nvrtc: NVRTC compilation of embedded kernels, an on-disk CUBIN cache,
 * and loading through cudaLibraryLoadData. */
#include "gb_nvrtc.h"

#include <errno.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_csv.h"
#include "gb_cuda.h"
#include "gb_kernels.h"

#define NVRTC_GOTO(call, err, label)                                \
  do {                                                              \
    nvrtcResult r_ = (call);                                        \
    if (r_ != NVRTC_SUCCESS) {                                      \
      (err) = gb_nvrtc_fail((int)r_, #call, __FILE__, __LINE__);    \
      goto label;                                                   \
    }                                                               \
  } while (0)

gb_err gb_nvrtc_version(int *major, int *minor) {
  nvrtcResult r = nvrtcVersion(major, minor);
  if (r != NVRTC_SUCCESS) return gb_nvrtc_fail((int)r, "nvrtcVersion", __FILE__, __LINE__);
  return GB_OK;
}

gb_err gb_nvrtc_compile(const char *name, const char *src, int cc_major, int cc_minor,
                        const char *const *opts, int nopts, void **cubin, size_t *cubin_size) {
  gb_err err = GB_OK;
  nvrtcProgram prog = NULL;
  char arch[32];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
  const char *all[40];
  int n = 0;
  all[n++] = arch;
  all[n++] = "--std=c++17";
  for (int i = 0; i < nopts && n < 40; i++) all[n++] = opts[i];
  *cubin = NULL;
  *cubin_size = 0;

  NVRTC_GOTO(nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL), err, done);
  nvrtcResult cr = nvrtcCompileProgram(prog, n, all);
  /* always fetch the log before looking at the result */
  size_t log_size = 0;
  char *log = NULL;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log = malloc(log_size);
    if (log && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
  }
  if (cr != NVRTC_SUCCESS) {
    err = gb_fail(GB_E_CUDA, "NVRTC could not compile kernels/%s for sm_%d%d: %s\n%s", name, cc_major,
                  cc_minor, nvrtcGetErrorString(cr), log ? log : "(no log)");
    free(log);
    goto done;
  }
  free(log);
  NVRTC_GOTO(nvrtcGetCUBINSize(prog, cubin_size), err, done);
  *cubin = malloc(*cubin_size);
  if (!*cubin) {
    err = gb_fail(GB_E_NOMEM, "out of memory for a %zu-byte CUBIN", *cubin_size);
    goto done;
  }
  NVRTC_GOTO(nvrtcGetCUBIN(prog, *cubin), err, done);
done:
  if (err) {
    free(*cubin);
    *cubin = NULL;
    *cubin_size = 0;
  }
  if (prog) nvrtcDestroyProgram(&prog);
  return err;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ULL;
  }
  return h;
}

/* The cache directory, created if needed; "" when none is usable. */
static void cache_dir(char *buf, size_t n) {
  const char *env = getenv("GPUBENCH_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (env && *env)
    snprintf(buf, n, "%s", env);
  else if (xdg && *xdg)
    snprintf(buf, n, "%s/gpubench", xdg);
  else if (home && *home)
    snprintf(buf, n, "%s/.cache/gpubench", home);
  else {
    buf[0] = '\0';
    return;
  }
  /* mkdir -p */
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(buf, 0755);
      *p = '/';
    }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST) buf[0] = '\0';
}

static void *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  void *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long len = ftell(f);
    if (len > 0 && fseek(f, 0, SEEK_SET) == 0) {
      buf = malloc((size_t)len);
      if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
      } else if (buf) {
        *size = (size_t)len;
      }
    }
  }
  fclose(f);
  return buf;
}

gb_err gb_module_load(const char *file, const char *const *opts, int nopts, gb_module *out) {
  memset(out, 0, sizeof *out);
  const gb_kernel_source *ks = gb_kernel_find(file);
  if (!ks) return gb_fail(GB_E_INTERNAL, "no embedded kernel source kernels/%s", file);
  int dev = 0, major = 0, minor = 0, vmaj = 0, vmin = 0;
  GB_CUDA(cudaGetDevice(&dev));
  GB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  GB_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  GB_TRY(gb_nvrtc_version(&vmaj, &vmin));

  uint64_t h = 14695981039346656037ULL;
  h = fnv1a(h, ks->text, ks->len);
  int key[4] = {major, minor, vmaj, vmin};
  h = fnv1a(h, key, sizeof key);
  for (int i = 0; i < nopts; i++) h = fnv1a(h, opts[i], strlen(opts[i]) + 1);

  char dir[3072], path[4096];
  cache_dir(dir, sizeof dir);
  void *cubin = NULL;
  size_t size = 0;
  if (dir[0]) {
    snprintf(path, sizeof path, "%s/%s-sm%d%d-%016llx.cubin", dir, file, major, minor, (unsigned long long)h);
    cubin = read_all(path, &size);
  }
  if (cubin) {
    cudaError_t e = cudaLibraryLoadData(&out->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
    free(cubin);
    if (e == cudaSuccess) return GB_OK;
    (void)cudaGetLastError(); /* a stale or torn cache entry: compile afresh */
  }
  GB_TRY(gb_nvrtc_compile(file, ks->text, major, minor, opts, nopts, &cubin, &size));
  if (dir[0]) gb_write_file_atomic(path, cubin, size); /* best effort */
  gb_errclear();
  cudaError_t e = cudaLibraryLoadData(&out->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
  free(cubin);
  if (e != cudaSuccess) return gb_cuda_fail(e, "cudaLibraryLoadData", __FILE__, __LINE__);
  return GB_OK;
}

gb_err gb_module_kernel(gb_module *m, const char *name, cudaKernel_t *out) {
  cudaError_t e = cudaLibraryGetKernel(out, m->lib, name);
  if (e != cudaSuccess) return gb_fail(GB_E_INTERNAL, "kernel %s not found in its module: %s", name, cudaGetErrorString(e));
  return GB_OK;
}

void gb_module_unload(gb_module *m) {
  if (m->lib) cudaLibraryUnload(m->lib);
  m->lib = NULL;
}
