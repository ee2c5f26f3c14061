/* gb_measure: the front end's way to the measuring side. The gpubench
 * program links no CUDA library (plan, report, compare, history, merge,
 * noise, export and monitor run on a machine without CUDA); `run` and
 * `info` load the measuring module, libgpubench-measure.so
 * (cli/gb_measure_module.c with bench/ and the kernels, linked to the CUDA
 * runtime, cuBLASLt, NVRTC and NCCL), at run time. docs/install.md. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_runinfo.h"

#define GB_MEASURE_MODULE "libgpubench-measure.so"

/* Where the module is, first found of: $GPUBENCH_MEASURE_MODULE; beside the
 * program (a build directory, .devbuild/); PREFIX/lib/gpubench/ for an
 * installed PREFIX/bin/gpubench. 0 found, -1 not (path holds the installed
 * location, the one a message names). */
static int find_module(char *path, size_t n) {
  const char *env = getenv("GPUBENCH_MEASURE_MODULE");
  if (env && *env) {
    snprintf(path, n, "%s", env);
    return access(path, R_OK) == 0 ? 0 : -1;
  }
  char dir[PATH_MAX];
  if (gb_exe_dir(dir, sizeof dir) != 0) {
    snprintf(path, n, "%s", GB_MEASURE_MODULE);
    return -1;
  }
  snprintf(path, n, "%s/%s", dir, GB_MEASURE_MODULE);
  if (access(path, R_OK) == 0) return 0;
  snprintf(path, n, "%s/../lib/gpubench/%s", dir, GB_MEASURE_MODULE);
  return access(path, R_OK) == 0 ? 0 : -1;
}

int gb_measure_call(const char *cmd, int argc, char **argv) {
  char path[PATH_MAX + 64];
  if (find_module(path, sizeof path) != 0) {
    fprintf(stderr,
            "gpubench %s: the measuring module %s is not installed (%s); plan, report, compare, history, "
            "merge, noise, export and monitor work without it (docs/install.md)\n",
            cmd, GB_MEASURE_MODULE, path);
    return 3;
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    fprintf(stderr,
            "gpubench %s: cannot load the measuring module: %s\n"
            "gpubench %s: run and info need the NVIDIA driver and the CUDA 13 libraries (CUDA runtime, "
            "cuBLASLt, NVRTC, NCCL) on the library path (docs/install.md)\n",
            cmd, why ? why : path, cmd);
    return 3;
  }
  int (*entry)(const char *, int, char **);
  *(void **)&entry = dlsym(h, "gb_measure_main");
  if (!entry) {
    fprintf(stderr, "gpubench %s: %s has no entry point gb_measure_main: a module from another version?\n", cmd,
            path);
    return 3;
  }
  /* the module stays loaded until exit: its CUDA state outlives the call */
  return entry(cmd, argc, argv);
}

