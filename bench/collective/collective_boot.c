/* collective_boot: the multi-process bootstrap of the collective
 * benchmark, with no CUDA or NCCL in it so that it is tested with real
 * processes on a machine with no GPU: which rank this process is (our own
 * GPUBENCH_ variables, Open MPI's, torchrun's, a Kubernetes Indexed Job's,
 * Slurm's), the NCCL unique id as hex text through an atomically written
 * file, an environment variable or a TCP connection to rank 0, and starting
 * local ranks with posix_spawn. docs/device.md, deploy/. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_collective.h"
#include "gb_csv.h"
#include "gb_num.h"

#define ID_MAGIC "gpubench-nccl-id 1 "

const char *gb_coll_env_get(char *const *envp, const char *name) {
  size_t len = strlen(name);
  for (char *const *e = envp; e && *e; e++)
    if (strncmp(*e, name, len) == 0 && (*e)[len] == '=') return *e + len + 1;
  return NULL;
}

/* Reads an integer variable; *present false when unset. */
static gb_err env_int(char *const *envp, const char *name, int lo, int hi, bool *present, int *out) {
  const char *v = gb_coll_env_get(envp, name);
  *present = v != NULL;
  if (!v) return GB_OK;
  int64_t x;
  if (!gb_parse_i64(v, &x) || x < lo || x > hi)
    return gb_fail(GB_E_USAGE, "environment %s=\"%s\": expected an integer from %d to %d", name, v, lo, hi);
  *out = (int)x;
  return GB_OK;
}

/* One launcher's variables. */
typedef struct env_family {
  const char *launcher, *rank, *world, *local, *local_size; /* local, local_size may be NULL */
  int local_default;                                        /* -1: the rank (one node) */
} env_family;

static const env_family k_gpubench = {"GPUBENCH", "GPUBENCH_RANK", "GPUBENCH_WORLD_SIZE", "GPUBENCH_LOCAL_RANK", NULL,
                                      -1};
/* innermost launcher first: mpirun or torchrun inside a Slurm allocation
 * sees the batch step's SLURM_PROCID too */
static const env_family k_launchers[] = {
    {"OMPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE", 0},
    {"TORCHRUN", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", 0},
    {"K8S", "JOB_COMPLETION_INDEX", "WORLD_SIZE", "LOCAL_RANK", NULL, 0},
    {"SLURM", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE", 0},
};

/* Rank, world size and local rank from one family of variables. */
static gb_err env_family_read(char *const *envp, const env_family *f, bool *present, gb_coll_rank_env *out) {
  bool have_rank, have_world, have_local = false, have_lsize = false;
  int rank = 0, world = 0, local = 0, lsize = 0;
  GB_TRY(env_int(envp, f->world, 1, 1 << 20, &have_world, &world));
  GB_TRY(env_int(envp, f->rank, 0, 1 << 20, &have_rank, &rank));
  if (f->local) GB_TRY(env_int(envp, f->local, 0, 1 << 20, &have_local, &local));
  if (f->local_size) GB_TRY(env_int(envp, f->local_size, 1, 1 << 20, &have_lsize, &lsize));
  *present = have_rank || have_world;
  if (!*present) return GB_OK;
  if (!have_rank || !have_world)
    return gb_fail(GB_E_USAGE, "environment: %s and %s must be set together (found only %s)", f->rank, f->world,
                   have_rank ? f->rank : f->world);
  if (rank >= world)
    return gb_fail(GB_E_USAGE, "environment %s=%d is not below %s=%d", f->rank, rank, f->world, world);
  if (!have_local) local = f->local_default < 0 ? rank : f->local_default;
  if (have_local && local >= world)
    return gb_fail(GB_E_USAGE, "environment %s=%d is not below %s=%d", f->local, local, f->world, world);
  if (have_lsize && lsize > world)
    return gb_fail(GB_E_USAGE, "environment %s=%d is more than %s=%d", f->local_size, lsize, f->world, world);
  if (have_lsize && local >= lsize)
    return gb_fail(GB_E_USAGE, "environment %s=%d is not below %s=%d", f->local ? f->local : "local rank", local,
                   f->local_size, lsize);
  out->rank = rank;
  out->world = world;
  out->local_rank = local;
  out->local_size = have_lsize ? lsize : 0;
  out->launcher = f->launcher;
  return GB_OK;
}

gb_err gb_coll_env_rank(char *const *envp, bool launchers, gb_coll_rank_env *out) {
  memset(out, 0, sizeof *out);
  out->world = 1;
  bool present = false;
  GB_TRY(env_family_read(envp, &k_gpubench, &present, out));
  if (present || !launchers) return GB_OK;
  const char *rank = gb_coll_env_get(envp, "RANK");
  for (size_t i = 0; i < sizeof k_launchers / sizeof k_launchers[0]; i++) {
    const env_family *f = &k_launchers[i];
    /* WORLD_SIZE belongs to torchrun when RANK is set, else to an Indexed Job's JOB_COMPLETION_INDEX */
    if (strcmp(f->launcher, "TORCHRUN") == 0 && !rank && gb_coll_env_get(envp, "JOB_COMPLETION_INDEX")) continue;
    GB_TRY(env_family_read(envp, f, &present, out));
    if (present) return GB_OK;
  }
  return GB_OK;
}

/* Where rank 0 serves the id when a torchrun-style launcher names a master
 * (MASTER_ADDR): "tcp://MASTER_ADDR:PORT", PORT = GPUBENCH_NCCL_ID_PORT,
 * else MASTER_PORT + 1 (MASTER_PORT itself may be torchrun's store), else
 * 29501. */
static gb_err master_address(char *const *envp, const char *addr, char *out, size_t n) {
  bool have;
  int port = 0;
  GB_TRY(env_int(envp, "GPUBENCH_NCCL_ID_PORT", 1, 65535, &have, &port));
  if (!have) {
    GB_TRY(env_int(envp, "MASTER_PORT", 1, 65534, &have, &port));
    port = have ? port + 1 : 29501;
  }
  if (strlen(addr) + 16 >= n || strchr(addr, '/'))
    return gb_fail(GB_E_USAGE, "environment MASTER_ADDR=\"%s\": not a host name or address", addr);
  snprintf(out, n, "tcp://%s:%d", addr, port);
  return GB_OK;
}

gb_err gb_coll_launch_resolve(const gb_coll_opts *o, char *const *envp, gb_coll_launch *out) {
  memset(out, 0, sizeof *out);
  out->world = 1;
  gb_coll_rank_env re;
  GB_TRY(gb_coll_env_rank(envp, o->mp == GB_COLL_MP_LAUNCHER, &re));
  if (re.launcher) {
    out->rank = re.rank;
    out->world = re.world;
    out->local_rank = re.local_rank;
    out->source = re.launcher;
  } else if (o->mp == GB_COLL_MP_LAUNCHER) {
    return gb_fail(GB_E_USAGE, "--opt mp=launcher: no rank in the environment: start gpubench with srun, mpirun or "
                               "torchrun, or set GPUBENCH_RANK and GPUBENCH_WORLD_SIZE (and GPUBENCH_LOCAL_RANK) per "
                               "process");
  } else if (o->mp >= 1) {
    out->mode = GB_COLL_MODE_SELF_LAUNCH;
    out->world = o->mp;
    out->source = "mp option";
    return GB_OK;
  } else {
    out->mode = GB_COLL_MODE_SINGLE;
    out->source = "single process";
    return GB_OK;
  }
  out->mode = GB_COLL_MODE_LAUNCHED;

  const char *hex = gb_coll_env_get(envp, "GPUBENCH_NCCL_ID");
  const char *file = gb_coll_env_get(envp, "GPUBENCH_NCCL_ID_FILE");
  if (hex && *hex) {
    if (strlen(hex) >= sizeof out->id_hex)
      return gb_fail(GB_E_USAGE, "environment GPUBENCH_NCCL_ID: %zu characters, expected %zu hex digits", strlen(hex),
                     sizeof out->id_hex - 1);
    strcpy(out->id_hex, hex);
    return GB_OK;
  }
  if (o->id_file[0]) file = o->id_file;
  if (file && *file) {
    if (strlen(file) >= sizeof out->id_file)
      return gb_fail(GB_E_USAGE, "NCCL id file path longer than %zu characters", sizeof out->id_file - 1);
    strcpy(out->id_file, file);
    return GB_OK;
  }
  const char *master = gb_coll_env_get(envp, "MASTER_ADDR");
  if (master && *master) return master_address(envp, master, out->id_file, sizeof out->id_file);
  const char *job = gb_coll_env_get(envp, "SLURM_JOB_ID");
  const char *step = gb_coll_env_get(envp, "SLURM_STEP_ID");
  if (job && *job) {
    snprintf(out->id_file, sizeof out->id_file, "gpubench-nccl-id.%s.%s", job, step && *step ? step : "0");
    return GB_OK;
  }
  return gb_fail(GB_E_USAGE, "rank %d of %d (%s): no way to share the NCCL id: set GPUBENCH_NCCL_ID_FILE (or --opt "
                             "id_file=PATH) to a path every rank can read, GPUBENCH_NCCL_ID to the id in hex, or "
                             "MASTER_ADDR (and MASTER_PORT) to rank 0's host, which then serves it",
                 out->rank, out->world, out->source);
}

gb_err gb_coll_rank_device(const int *devices, int ndevices, int local_rank, int *ordinal) {
  if (ndevices == 1) {
    *ordinal = devices[0];
    return GB_OK;
  }
  if (local_rank < 0 || local_rank >= ndevices)
    return gb_fail(GB_E_USAGE, "local rank %d has no GPU: %d GPUs selected; start at most one rank per GPU on a node, "
                               "or give each rank one GPU (--devices or CUDA_VISIBLE_DEVICES)", local_rank, ndevices);
  *ordinal = devices[local_rank];
  return GB_OK;
}

/* ---- hex and the id file ---- */

gb_err gb_coll_hex_encode(const void *bytes, size_t n, char *out, size_t outsz) {
  static const char digits[] = "0123456789abcdef";
  if (outsz < 2 * n + 1) return gb_fail(GB_E_INTERNAL, "hex buffer of %zu bytes for %zu bytes", outsz, n);
  const unsigned char *b = bytes;
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[b[i] >> 4];
    out[2 * i + 1] = digits[b[i] & 15];
  }
  out[2 * n] = '\0';
  return GB_OK;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

gb_err gb_coll_hex_decode(const char *hex, void *bytes, size_t n, const char *what) {
  size_t len = strlen(hex);
  if (len != 2 * n) return gb_fail(GB_E_INPUT, "%s: %zu hex digits, expected %zu", what, len, 2 * n);
  unsigned char *b = bytes;
  for (size_t i = 0; i < n; i++) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      size_t at = hi < 0 ? 2 * i : 2 * i + 1;
      return gb_fail(GB_E_INPUT, "%s: character %zu (\"%c\") is not a hex digit", what, at + 1, hex[at]);
    }
    b[i] = (unsigned char)(hi << 4 | lo);
  }
  return GB_OK;
}

/* ---- the id served by rank 0 over TCP ("tcp://HOST:PORT") ---- */

#define TCP_PREFIX "tcp://"

static bool is_tcp(const char *path) { return strncmp(path, TCP_PREFIX, strlen(TCP_PREFIX)) == 0; }

/* host and port of "tcp://HOST:PORT" (HOST may be [v6]) */
static gb_err tcp_split(const char *path, char *host, size_t hn, char *port, size_t pn) {
  const char *hp = path + strlen(TCP_PREFIX), *colon = strrchr(hp, ':');
  if (!colon || colon == hp || !colon[1] || strlen(colon + 1) >= pn)
    return gb_fail(GB_E_USAGE, "%s: expected tcp://HOST:PORT", path);
  size_t len = (size_t)(colon - hp);
  if (hp[0] == '[' && len >= 2 && hp[len - 1] == ']') hp++, len -= 2;
  if (len >= hn) return gb_fail(GB_E_USAGE, "%s: host name too long", path);
  memcpy(host, hp, len);
  host[len] = '\0';
  strcpy(port, colon + 1);
  return GB_OK;
}

static bool is_loopback(const char *host) {
  return strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0;
}

/* One server per process: a later id for the same address replaces the one served. */
static struct {
  pthread_mutex_t lock;
  int fd;
  char addr[1100];
  char text[512];
} g_srv = {PTHREAD_MUTEX_INITIALIZER, -1, "", ""};

static void *serve_id(void *arg) {
  (void)arg;
  for (;;) {
    int c = accept(g_srv.fd, NULL, NULL);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return NULL;
    }
    char text[sizeof g_srv.text];
    pthread_mutex_lock(&g_srv.lock);
    memcpy(text, g_srv.text, sizeof text);
    pthread_mutex_unlock(&g_srv.lock);
    size_t len = strlen(text), sent = 0;
    while (sent < len) {
      ssize_t w = send(c, text + sent, len - sent, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      sent += (size_t)w;
    }
    close(c);
  }
}

/* Rank 0: listen on PORT (on HOST when it is a loopback address, else on
 * every interface: MASTER_ADDR may name this host by an address the host
 * does not bind) and answer every connection with the id text, from a
 * detached thread, until the process ends. */
static gb_err tcp_serve(const char *path, const char *text) {
  pthread_mutex_lock(&g_srv.lock);
  if (g_srv.fd >= 0) {
    gb_err e = strcmp(g_srv.addr, path) == 0 ? GB_OK
                                             : gb_fail(GB_E_USAGE, "%s: this process already serves an id on %s",
                                                       path, g_srv.addr);
    if (!e) snprintf(g_srv.text, sizeof g_srv.text, "%s", text);
    pthread_mutex_unlock(&g_srv.lock);
    return e;
  }
  pthread_mutex_unlock(&g_srv.lock);
  char host[1024], port[16];
  GB_TRY(tcp_split(path, host, sizeof host, port, sizeof port));
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int rc = getaddrinfo(is_loopback(host) ? host : NULL, port, &hints, &ai);
  if (rc != 0) return gb_fail(GB_E_USAGE, "%s: %s", path, gai_strerror(rc));
  int fd = -1, err = 0;
  for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 128) != 0) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  if (fd < 0) return gb_fail(GB_E_IO, "%s: cannot listen on port %s: %s", path, port, strerror(err));
  pthread_mutex_lock(&g_srv.lock);
  g_srv.fd = fd;
  snprintf(g_srv.addr, sizeof g_srv.addr, "%s", path);
  snprintf(g_srv.text, sizeof g_srv.text, "%s", text);
  pthread_mutex_unlock(&g_srv.lock);
  pthread_t t;
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  rc = pthread_create(&t, &at, serve_id, NULL);
  pthread_attr_destroy(&at);
  if (rc != 0) {
    pthread_mutex_lock(&g_srv.lock);
    close(g_srv.fd);
    g_srv.fd = -1;
    pthread_mutex_unlock(&g_srv.lock);
    return gb_fail(GB_E_IO, "%s: cannot start the id server: %s", path, strerror(rc));
  }
  return GB_OK;
}

/* One try at fetching the id text: the length read, or -1 (not there yet). */
static long tcp_fetch(const char *host, const char *port, char *buf, size_t cap, int wait_ms) {
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  if (getaddrinfo(host, port, &hints, &ai) != 0) return -1;
  long got = -1;
  for (struct addrinfo *a = ai; a && got < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    struct pollfd p = {fd, POLLOUT, 0};
    if (rc != 0 && errno == EINPROGRESS && poll(&p, 1, wait_ms) == 1) {
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
      rc = soerr == 0 ? 0 : -1;
    } else if (rc != 0) {
      rc = -1;
    }
    if (rc == 0) {
      size_t n = 0;
      for (;;) {
        struct pollfd q = {fd, POLLIN, 0};
        if (poll(&q, 1, wait_ms) != 1) break;
        ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
        if (n == cap - 1) break;
      }
      buf[n] = '\0';
      if (n > 0) got = (long)n;
    }
    close(fd);
  }
  freeaddrinfo(ai);
  return got;
}

gb_err gb_coll_id_write(const char *path, const void *id, size_t n) {
  size_t len = strlen(ID_MAGIC) + 2 * n + 2;
  char *text = malloc(len);
  if (!text) return gb_fail(GB_E_NOMEM, "out of memory for the NCCL id text");
  strcpy(text, ID_MAGIC);
  gb_err e = gb_coll_hex_encode(id, n, text + strlen(ID_MAGIC), len - strlen(ID_MAGIC));
  if (e == GB_OK) {
    strcat(text, "\n");
    e = is_tcp(path) ? tcp_serve(path, text) : gb_write_file_atomic(path, text, strlen(text));
  }
  free(text);
  return e;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Reads the whole small file into buf; -1 when it cannot be opened. */
static long read_small(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t got = 0;
  for (;;) {
    ssize_t r = read(fd, buf + got, cap - 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
    if (got == cap - 1) break;
  }
  close(fd);
  buf[got] = '\0';
  return (long)got;
}

gb_err gb_coll_id_read_wait(const char *path, void *id, size_t n, double timeout_s) {
  size_t want = strlen(ID_MAGIC) + 2 * n + 1;
  char *buf = malloc(want + 2);
  if (!buf) return gb_fail(GB_E_NOMEM, "out of memory for the NCCL id text");
  double deadline = now_s() + timeout_s;
  gb_err e;
  char host[1024] = "", port[16] = "";
  bool tcp = is_tcp(path);
  if (tcp && (e = tcp_split(path, host, sizeof host, port, sizeof port))) {
    free(buf);
    return e;
  }
  for (;;) {
    long got = tcp ? tcp_fetch(host, port, buf, want + 2, 1000) : read_small(path, buf, want + 2);
    if (got >= 0) {
      /* the writer renames a complete file into place, so what is there is whole */
      if ((size_t)got != want || strncmp(buf, ID_MAGIC, strlen(ID_MAGIC)) != 0 || buf[want - 1] != '\n') {
        e = gb_fail(GB_E_INPUT, "%s: not a gpubench NCCL id file (expected \"%s<%zu hex digits>\")", path, ID_MAGIC,
                    2 * n);
        break;
      }
      buf[want - 1] = '\0';
      e = gb_coll_hex_decode(buf + strlen(ID_MAGIC), id, n, path);
      break;
    }
    if (now_s() >= deadline) {
      e = tcp ? gb_fail(GB_E_IO, "%s: no NCCL id after %.0f s: is rank 0 running on that host, and is the port open "
                                 "between the nodes?", path, timeout_s)
              : gb_fail(GB_E_IO, "%s: no NCCL id after %.0f s: is rank 0 running, and is the path on a file system "
                                 "every rank sees?", path, timeout_s);
      break;
    }
    sleep_ms(tcp ? 100 : 10);
  }
  free(buf);
  return e;
}

/* ---- starting local ranks ---- */

gb_err gb_coll_child_argv(const char *exe, int ordinal, const char *out_path, char *store, size_t storesz,
                          char **argv, int cap) {
  char dev[16];
  snprintf(dev, sizeof dev, "%d", ordinal);
  const char *items[] = {exe, "run", "--bench", "collective", "--devices", dev, "--out", out_path};
  int nitems = (int)(sizeof items / sizeof items[0]);
  if (cap < nitems + 1) return gb_fail(GB_E_INTERNAL, "argv capacity %d for %d arguments", cap, nitems);
  size_t used = 0;
  for (int i = 0; i < nitems; i++) {
    size_t len = strlen(items[i]) + 1;
    if (used + len > storesz) return gb_fail(GB_E_INTERNAL, "argument store of %zu bytes is too small", storesz);
    memcpy(store + used, items[i], len);
    argv[i] = store + used;
    used += len;
  }
  argv[nitems] = NULL;
  return GB_OK;
}

static bool is_rank_var(const char *e) {
  static const char *const names[] = {"GPUBENCH_RANK=", "GPUBENCH_WORLD_SIZE=", "GPUBENCH_LOCAL_RANK=",
                                      "GPUBENCH_NCCL_ID_FILE=", "GPUBENCH_NCCL_ID="};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp(e, names[i], strlen(names[i])) == 0) return true;
  return false;
}

void gb_coll_env_free(char **env) {
  if (!env) return;
  for (char **e = env; *e; e++) free(*e);
  free(env);
}

static char *printf_dup(const char *fmt, const char *name, const char *val) {
  size_t len = strlen(name) + strlen(val) + 2;
  char *s = malloc(len);
  if (s) snprintf(s, len, fmt, name, val);
  return s;
}

char **gb_coll_child_env(char *const *envp, int rank, int world, const char *id_file) {
  size_t n = 0;
  for (char *const *e = envp; e && *e; e++) n++;
  char **env = calloc(n + 5, sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (char *const *e = envp; e && *e; e++) {
    if (is_rank_var(*e)) continue;
    if (!(env[k++] = strdup(*e))) goto oom;
  }
  char r[16], w[16];
  snprintf(r, sizeof r, "%d", rank);
  snprintf(w, sizeof w, "%d", world);
  if (!(env[k++] = printf_dup("%s=%s", "GPUBENCH_RANK", r))) goto oom;
  if (!(env[k++] = printf_dup("%s=%s", "GPUBENCH_WORLD_SIZE", w))) goto oom;
  if (!(env[k++] = printf_dup("%s=%s", "GPUBENCH_LOCAL_RANK", r))) goto oom;
  if (!(env[k++] = printf_dup("%s=%s", "GPUBENCH_NCCL_ID_FILE", id_file))) goto oom;
  env[k] = NULL;
  return env;
oom:
  gb_coll_env_free(env);
  return NULL;
}

gb_err gb_coll_spawn(char *const *argv, char *const *envp, const char *log_path, pid_t *pid) {
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc != 0) return gb_fail(GB_E_NOMEM, "posix_spawn_file_actions_init: %s", strerror(rc));
  rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
  if (rc == 0) rc = posix_spawn(pid, argv[0], &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return gb_fail(GB_E_IO, "cannot start %s: %s", argv[0], strerror(rc));
  return GB_OK;
}

gb_err gb_coll_wait_child(pid_t pid, double timeout_s, int *status) {
  double deadline = now_s() + timeout_s;
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return GB_OK;
    if (r < 0 && errno != EINTR) return gb_fail(GB_E_IO, "waitpid(%d): %s", (int)pid, strerror(errno));
    if (now_s() >= deadline) return gb_fail(GB_E_IO, "process %d still running after %.1f s", (int)pid, timeout_s);
    sleep_ms(10);
  }
}
