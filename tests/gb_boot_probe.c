/* gb_boot_probe: prints how the collective's bootstrap reads this process's
 * environment, "launcher=L rank=R world=W local_rank=L id=ID", or the error
 * (exit 2). scripts/test-fleet.sh runs it under a real srun; docs/device.md
 * uses it to check a launcher's set-up before the GPU run. */
#include <stdio.h>

#include "bench_collective.h"

extern char **environ;

int main(void) {
  gb_coll_opts o = gb_coll_opts_default();
  o.mp = GB_COLL_MP_LAUNCHER;
  gb_coll_launch l;
  if (gb_coll_launch_resolve(&o, environ, &l) != GB_OK) {
    fprintf(stderr, "gb_boot_probe: %s\n", gb_errmsg());
    return 2;
  }
  printf("launcher=%s rank=%d world=%d local_rank=%d id=%s\n", l.source, l.rank, l.world, l.local_rank,
         l.id_hex[0] ? "(hex from GPUBENCH_NCCL_ID)" : l.id_file);
  return 0;
}
