/* bench_collective: the pure parts of the NCCL collective benchmark, testable
 * on a machine with no GPU: the table of collectives (one gb_coll_desc each,
 * collective_colls.c: a new collective is one entry there),
 * nccl-tests' byte and bus-bandwidth accounting read from it, the
 * message-size sweep and case plan, the known per-rank input values and the
 * expected result of each collective (the host twin of
 * collective_check.cu, which knows no collective: it is given the
 * entry's check rule), the `--opt` keys, and the multi-process bootstrap
 * (launcher environment, NCCL unique id through a file or a hex environment
 * variable, spawning local ranks).
 *
 * Definitions (nccl-tests src/<coll>.cu *GetBw, doc/PERFORMANCE.md;
 * ../shared/reference/benchmarks.md):
 *   n = ranks (GPUs) in the communicator, count = elements per rank as below
 *   all_reduce      S = count * typesize           busbw = algbw * 2(n-1)/n
 *   reduce_scatter  S = count * typesize * n        busbw = algbw * (n-1)/n
 *                   (count = elements each rank receives)
 *   all_gather      S = count * typesize * n        busbw = algbw * (n-1)/n
 *                   (count = elements each rank sends)
 *   broadcast       S = count * typesize           busbw = algbw * 1
 *   alltoall        S = count * typesize * n        busbw = algbw * (n-1)/n
 *                   (count = elements each rank sends to each peer, a
 *                   multiple of 16 bytes)
 *   sendrecv        S = count * typesize           busbw = algbw * 1
 *                   (rank r sends to (r+1)%n, receives from (r-1+n)%n)
 *   algbw = S / time (GB/s, 1e9 bytes), time = the slowest rank's time per op. */
#ifndef BENCH_COLLECTIVE_H
#define BENCH_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "gb_error.h"
#include "gb_results.h"

/* ---- the table of collectives ---- */

/* A collective: its index in gb_coll_table (0 .. gb_coll_count()-1). */
typedef int gb_coll;

/* One rank's part of one operation, as a collective's enqueue sees it. */
typedef struct gb_coll_call {
  const void *send;
  void *recv;
  size_t count;      /* the NCCL count argument (gb_coll_count_for_size) */
  size_t elem_bytes; /* bytes of one element */
  int nccl_type;     /* an ncclDataType_t */
  int rank, nranks;
  void *comm;        /* an ncclComm_t */
  void *stream;      /* a cudaStream_t */
} gb_coll_call;

/* Which input element rank r's output element k holds (k < the receive
 * buffer's elements): the sum over the source ranks q of input(q, index),
 *   sources  every rank when reduce, else the one rank
 *            ((src_block ? k / count : 0) + (src_self ? r : 0) + src_shift) mod n
 *   index    (idx_block ? r * count : 0) + (idx_mod ? k % count : k)
 * The check kernel is given these numbers and knows no collective. */
typedef struct gb_coll_rule {
  bool reduce;
  bool src_block, src_self;
  int src_shift;
  bool idx_block, idx_mod;
} gb_coll_rule;

/* Everything the benchmark knows of one collective (nccl-tests src/<coll>.cu:
 * GetCollByteCount, GetBw, InitData, RunColl). */
typedef struct gb_coll_desc {
  const char *name;    /* the case name's stem and the colls= name: "all_reduce" */
  const char *op_note; /* after the name in a row's detail: " sum", " root 0" */
  /* accounting */
  bool split;          /* the sweep size is the whole array of n ranks: count = size /
                          typesize / n and S = count * typesize * n (else count = size /
                          typesize, S = count * typesize) */
  int align_bytes;     /* count rounded down to a multiple of this many bytes (0: none) */
  bool send_n, recv_n; /* the send / receive buffer holds n * count elements (else count) */
  double bus_ring, bus_flat; /* busbw factor = bus_ring * (n-1)/n + bus_flat */
  /* placement and data */
  bool inplace;        /* has an in-place form (one buffer) */
  bool inplace_send_block, inplace_recv_block; /* in place, the send (receive) side is
                          this rank's count-element block of the buffer */
  int root;            /* only this rank's send buffer holds input (-1: every rank's) */
  gb_coll_rule check;
  /* plan */
  bool quick_sweep;    /* the quick profile sweeps every size in fp32 and its other
                          dtypes at the quick sizes (others: fp32 at the quick sizes) */
  bool one_rank_trivial; /* with one rank its figures mean nothing (gb_desc): planned
                          only with trivial=1 */
  /* The NCCL call it makes, where the library decides it (NULL: the one
     call its name says); the rows' detail names it. */
  const char *(*api)(void);
  /* Enqueues this rank's part on its stream; an ncclResult_t (0: success). */
  int (*enqueue)(const gb_coll_call *c);
} gb_coll_desc;

/* The table (collective_colls.c) and its length. */
extern const gb_coll_desc gb_coll_table[];
int gb_coll_count(void);

/* The entry of c, or NULL out of range. */
const gb_coll_desc *gb_coll_desc_of(gb_coll c);

/* The collective's name ("?" out of range). */
const char *gb_coll_name(gb_coll c);
/* Parses one of those names; false when unknown. */
bool gb_coll_parse(const char *s, gb_coll *out);
/* The collective a `case` name is of ("all_reduce_outofplace_mp"): its name
 * followed by "_inplace" or "_outofplace"; false when none. */
bool gb_coll_of_case(const char *case_name, gb_coll *out);

/* The element types. */
typedef enum gb_coll_dtype { GB_COLL_FP32 = 0, GB_COLL_BF16, GB_COLL_FP16, GB_COLL_DTYPE_COUNT } gb_coll_dtype;

/* "fp32", "bf16", "fp16" (results-schema names), their sizes in bytes and
 * their significand bits (23, 7, 10: what tells the formats apart in the
 * kernel). */
const char *gb_coll_dtype_name(gb_coll_dtype t);
int gb_coll_dtype_size(gb_coll_dtype t);
int gb_coll_dtype_mant_bits(gb_coll_dtype t);
bool gb_coll_dtype_parse(const char *s, gb_coll_dtype *out);

/* nccl-tests' bus-bandwidth factor for n ranks (n >= 1): 2(n-1)/n for
 * all_reduce, (n-1)/n for reduce_scatter, all_gather and alltoall, 1 for
 * broadcast and sendrecv. So busbw is 0 on one GPU except for broadcast and
 * sendrecv, where nccl-tests keeps 1. NAN for a bad c or n. */
double gb_coll_busbw_factor(gb_coll c, int n);

/* Whether a case of c on n ranks writes a busbw_gbps row: always with
 * trivial (collective.trivial=1), else unless its factor is 0 (one rank of
 * all_reduce, reduce_scatter, all_gather, alltoall: 0 by definition).
 * sendrecv and broadcast keep factor 1 on one rank, as nccl-tests prints
 * them, so their busbw row (= algbw) is written there too. */
bool gb_coll_busbw_written(gb_coll c, int n, bool trivial);

/* Per-rank element count nccl-tests uses for a sweep size of size_bytes
 * (the largest buffer of the operation): all_reduce, broadcast and sendrecv
 * size/typesize, reduce_scatter, all_gather and alltoall size/typesize/n
 * (rounded down; alltoall's then down to a multiple of 16 bytes). 0 when
 * the size is too small for one element per rank. */
int64_t gb_coll_count_for_size(gb_coll c, int64_t size_bytes, int typesize, int n);

/* S in bytes (the `bytes` column and algbw's numerator) for a per-rank
 * count: count*typesize, times n for reduce_scatter, all_gather and
 * alltoall. */
int64_t gb_coll_bytes(gb_coll c, int64_t count, int typesize, int n);

/* Elements in the send and receive buffer of one rank for a per-rank count
 * (all_reduce c/c, reduce_scatter n*c/c, all_gather c/n*c, broadcast c/c,
 * alltoall n*c/n*c, sendrecv c/c). */
void gb_coll_buffer_elems(gb_coll c, int64_t count, int n, int64_t *send_elems, int64_t *recv_elems);

/* algbw in GB/s (1e9 bytes) of S bytes in time_s seconds; busbw = algbw *
 * gb_coll_busbw_factor. */
double gb_coll_algbw_gbps(int64_t bytes, double time_s);
double gb_coll_busbw_gbps(gb_coll c, int n, int64_t bytes, double time_s);

/* `case` column: "<collective>_outofplace" or "<collective>_inplace", with
 * "_mp" appended in the multi-process modes (one process per GPU), so rows
 * of both modes in one file keep distinct keys. */
void gb_coll_case_name(gb_coll c, bool inplace, bool multiprocess, char *buf, size_t n);

/* The metrics of a case's rows, in the order they are written: time_us,
 * algbw_gbps, busbw_gbps; their units and directions are the registry's
 * (core/gb_registry.def). */
enum { GB_COLL_TIME = 0, GB_COLL_ALGBW, GB_COLL_BUSBW, GB_COLL_NMETRICS };
extern const char *const gb_coll_metrics[GB_COLL_NMETRICS];

/* ---- sizes and plan ---- */

/* Message sizes from min_bytes, multiplied by factor (an integer >= 2, as
 * nccl-tests -f) while <= max_bytes; max_bytes is appended when the
 * geometric steps miss it, so the sweep always ends there. Writes at most
 * cap sizes to out and returns how many there are (0 on bad arguments:
 * min < 1, max < min, factor < 2). */
size_t gb_coll_size_sweep(int64_t min_bytes, int64_t max_bytes, int factor, int64_t *out, size_t cap);

/* The GPU counts of the single-process mode: 1, 2, 4, 8 ... up to ndev,
 * plus ndev itself when it is not a power of two. Returns how many (<= cap). */
int gb_coll_gpu_counts(int ndev, int *out, int cap);

/* One planned measurement. */
typedef struct gb_coll_point {
  gb_coll coll;
  gb_coll_dtype dtype;
  bool inplace;
  int nranks;
  int64_t size_bytes; /* the sweep size it came from */
  int64_t count;      /* per-rank count (gb_coll_count_for_size) */
  int64_t bytes;      /* S */
} gb_coll_point;

#define GB_COLL_MP_LAUNCHER (-1) /* opts.mp: rank and world size from a launcher */
#define GB_COLL_MAX_SIZES 64

/* `--opt` keys this benchmark reads (each may also be written with a
 * "collective." prefix; unknown keys without the prefix belong to other
 * benchmarks and are ignored, unknown prefixed keys are an error). */
typedef struct gb_coll_opts {
  int mp;              /* 0: one process drives the selected GPUs; N >= 1: start N
                          local processes, one per GPU; GB_COLL_MP_LAUNCHER (mp=launcher):
                          this process is one rank started by srun/mpirun */
  int64_t min_bytes;   /* min=SIZE (default 8) */
  int64_t max_bytes;   /* max=SIZE (default 1G) */
  int factor;          /* factor=F (default 2) */
  int ops;             /* ops=N operations per timed sample, nccl-tests -n (default 20) */
  unsigned colls;      /* colls=all_reduce:broadcast (bit per gb_coll; default all) */
  unsigned dtypes;     /* dtypes=fp32:bf16 (bit per gb_coll_dtype; default all) */
  unsigned placements; /* place=outofplace:inplace (bit 0 out-of-place, bit 1 in-place) */
  char id_file[1024];  /* id_file=PATH: the NCCL unique id file (mp modes) */
  double timeout_s;    /* timeout=SECONDS: bootstrap and per-sync deadline (default 300) */
  bool trivial;        /* trivial=1: also the figures that mean nothing on one GPU (one-rank
                          in-place, one-GPU broadcast, busbw rows on one GPU); default off */
} gb_coll_opts;

/* Defaults above (mp 0, all collectives, dtypes and placements). */
gb_coll_opts gb_coll_opts_default(void);

/* Parses "key=value,key=value" (NULL or "" = defaults) into *o, starting
 * from the defaults. Errors name the key and the accepted values. */
gb_err gb_coll_opts_parse(const char *s, gb_coll_opts *o);

/* The measurement points of a profile for the GPU counts given, in run
 * order: collective (the table's order), dtype, GPU count, size, then
 * out-of-place before in-place (as nccl-tests prints them). The full
 * profile is every selected combination; the quick one is all_reduce fp32
 * over the whole sweep and both placements, plus all_reduce bf16/fp16 and
 * every other collective in fp32, out-of-place, at 64 KiB, 16 MiB and the
 * largest size (those within the sweep). In place only where the
 * collective has that form (not alltoall, sendrecv). Points whose size
 * gives no element per rank are left out. Returns the number of points
 * (written up to cap). */
size_t gb_coll_plan_points(const gb_coll_opts *o, bool full, const int *counts, int ncounts, gb_coll_point *out,
                           size_t cap);

/* ---- known inputs and expected results ---- */

/* The value rank r holds at element idx of its input: a hashed integer in
 * {-4..-1, 1..4}, never 0, so every partial sum of up to 64 ranks is an
 * integer exact in bf16 (8 significant bits), fp16 and fp32. */
int gb_coll_input_value(int rank, uint64_t idx, uint32_t seed);

/* The value rank `rank` must hold at element k of its output (the checked
 * region: its receive buffer), from the collective's check rule
 * (gb_coll_rule):
 *   all_reduce      sum over q of input(q, k)
 *   reduce_scatter  sum over q of input(q, rank*count + k)
 *   all_gather      input(k / count, k % count)
 *   broadcast       input(0, k)
 *   alltoall        input(k / count, rank*count + k % count)
 *   sendrecv        input((rank-1+n) % n, k) */
int gb_coll_expected(gb_coll c, int rank, int n, int64_t count, uint64_t k, uint32_t seed);

/* Element conversions (bit manipulation, round to nearest even). */
uint16_t gb_coll_f32_to_bf16(float f);
uint16_t gb_coll_f32_to_f16(float f);
float gb_coll_bf16_to_f32(uint16_t h);
float gb_coll_f16_to_f32(uint16_t h);

/* Writes input(rank, first_idx + i) for i < nelems into buf as dtype t. */
void gb_coll_fill_host(void *buf, int64_t nelems, gb_coll_dtype t, int rank, uint64_t first_idx, uint32_t seed);

/* Counts the elements of out (the checked region of rank `rank`, nelems
 * elements of dtype t) that differ from gb_coll_expected; NaN never
 * matches. The host twin of the coll_check kernel. */
uint64_t gb_coll_count_wrong_host(gb_coll c, gb_coll_dtype t, int rank, int n, int64_t count, uint32_t seed,
                                  const void *out, int64_t nelems);

/* `ok` when no element is wrong, else `invalid`. */
gb_status gb_coll_status_of(uint64_t wrong);

/* ---- the end-of-run table ---- */

/* Prints collective, dtype, GPU count, size, algbw and busbw for the
 * busbw_gbps rows of this benchmark at up to five sizes per (case, dtype,
 * GPU count): the ones nearest 64 KiB, 1 MiB, 16 MiB, 256 MiB and the
 * largest. Prints nothing when there are no such rows. */
void gb_coll_summary_print(const gb_row *rows, size_t n, FILE *fp);

/* ---- multi-process bootstrap ---- */

typedef enum gb_coll_mode {
  GB_COLL_MODE_SINGLE = 0, /* one process, ncclCommInitAll over the selected GPUs */
  GB_COLL_MODE_SELF_LAUNCH, /* rank 0 that starts ranks 1..N-1 itself */
  GB_COLL_MODE_LAUNCHED     /* one rank of a launcher (srun, mpirun, or our self-launch) */
} gb_coll_mode;

typedef struct gb_coll_launch {
  gb_coll_mode mode;
  int rank, world, local_rank;
  const char *source;       /* which variables gave rank/world: a gb_coll_rank_env launcher, "mp option" */
  char id_file[1024];       /* where the unique id is exchanged ("" when id_hex is used) */
  char id_hex[2 * 128 + 1]; /* GPUBENCH_NCCL_ID, when the launcher passes the id itself */
} gb_coll_launch;

/* Value of variable name in a NULL-terminated "NAME=value" array, or NULL. */
const char *gb_coll_env_get(char *const *envp, const char *name);

/* Which rank this process is, from its environment alone (a pure function
 * of envp). */
typedef struct gb_coll_rank_env {
  int rank, world, local_rank;
  int local_size;       /* ranks on this node when the launcher says, else 0 */
  const char *launcher; /* "GPUBENCH", "OMPI", "TORCHRUN", "K8S", "SLURM"; NULL: none (rank 0 of 1) */
} gb_coll_rank_env;

/* Reads, first found: GPUBENCH_RANK/WORLD_SIZE/LOCAL_RANK (always); then,
 * only when launchers is true (--opt mp=launcher): Open MPI's
 * OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE; torchrun's
 * RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE; a Kubernetes Indexed Job's
 * JOB_COMPLETION_INDEX with WORLD_SIZE (and LOCAL_RANK, default 0); Slurm's
 * SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID/SLURM_NTASKS_PER_NODE. The
 * innermost launcher comes first: mpirun or torchrun inside a Slurm batch
 * step also sees the step's SLURM_PROCID. A missing local rank is the rank
 * for GPUBENCH (one node), else 0. GB_E_USAGE, naming the variables and
 * values, for a non-number, a rank without a size (or the reverse), rank or
 * local rank not below the size, a local rank not below the node's size, or
 * a node size above the world size. */
gb_err gb_coll_env_rank(char *const *envp, bool launchers, gb_coll_rank_env *out);

/* Decides how this process takes part, from the options and the
 * environment envp (environ in production, a literal array in tests):
 *   - GPUBENCH_RANK and GPUBENCH_WORLD_SIZE set (our self-launch, or any
 *     launcher told to set them; GPUBENCH_LOCAL_RANK defaults to the rank):
 *     LAUNCHED;
 *   - else opts mp=launcher: a launcher's variables (gb_coll_env_rank:
 *     Open MPI, torchrun, Kubernetes, Slurm): LAUNCHED (an error when none
 *     is set);
 *   - else mp=N >= 1: SELF_LAUNCH with rank 0 of N;
 *   - else SINGLE.
 * Launcher variables are not read without mp=launcher, so a batch script's
 * SLURM_PROCID cannot make a plain run wait for ranks that never start.
 * The id comes from GPUBENCH_NCCL_ID (hex), else from the file named by
 * opts id_file, else GPUBENCH_NCCL_ID_FILE, else, when MASTER_ADDR is set,
 * "tcp://MASTER_ADDR:PORT" (rank 0 serves the id there: PORT is
 * GPUBENCH_NCCL_ID_PORT, else MASTER_PORT + 1, else 29501), else the file
 * gpubench-nccl-id.<SLURM_JOB_ID>.<SLURM_STEP_ID> in the working directory.
 * SELF_LAUNCH leaves id_file empty (the caller makes a private directory).
 * Errors (GB_E_USAGE) name the variable and the value. */
gb_err gb_coll_launch_resolve(const gb_coll_opts *o, char *const *envp, gb_coll_launch *out);

/* The CUDA ordinal a launched rank drives: the only selected device when
 * one is selected (a launcher that sets CUDA_VISIBLE_DEVICES per rank, or
 * --devices), else devices[local_rank]. GB_E_USAGE when local_rank is out
 * of range. */
gb_err gb_coll_rank_device(const int *devices, int ndevices, int local_rank, int *ordinal);

/* Lower-case hex of n bytes into out (2n+1 bytes needed; GB_E_INTERNAL when
 * outsz is too small). */
gb_err gb_coll_hex_encode(const void *bytes, size_t n, char *out, size_t outsz);

/* Exactly 2n hex digits (either case) into n bytes; GB_E_INPUT names what
 * is wrong (length, the first bad character). `what` names the source in
 * the message (a variable or a file). */
gb_err gb_coll_hex_decode(const char *hex, void *bytes, size_t n, const char *what);

/* Writes the id file "gpubench-nccl-id 1 <hex>\n" atomically (temp file +
 * rename), so a reader never sees a partial id. A path "tcp://HOST:PORT"
 * instead listens on PORT (on HOST itself when it is a loopback address)
 * and sends that text to every connection, from a detached thread, until
 * the process ends; a second id for the same address replaces the first. */
gb_err gb_coll_id_write(const char *path, const void *id, size_t n);

/* Waits until path holds a complete id file and reads the n-byte id; polls
 * every 10 ms ("tcp://HOST:PORT": connects every 100 ms until rank 0
 * answers). GB_E_IO after timeout_s seconds (the message says what to
 * check), GB_E_INPUT when the file is complete but malformed. */
gb_err gb_coll_id_read_wait(const char *path, void *id, size_t n, double timeout_s);

/* Argument vector for local rank r of a self-launch: exe run --bench
 * collective --devices <ordinal> --out <out_path>. Strings are written
 * into store (one buffer of storesz bytes); argv gets up to 16 entries,
 * NULL-terminated. */
gb_err gb_coll_child_argv(const char *exe, int ordinal, const char *out_path, char *store, size_t storesz,
                          char **argv, int cap);

/* Environment for rank r of world: every entry of envp except the GPUBENCH_
 * rank variables, then GPUBENCH_RANK, GPUBENCH_WORLD_SIZE,
 * GPUBENCH_LOCAL_RANK, GPUBENCH_NCCL_ID_FILE. Returns a malloc'd
 * NULL-terminated array whose strings are malloc'd too
 * (gb_coll_env_free). NULL on out-of-memory. */
char **gb_coll_child_env(char *const *envp, int rank, int world, const char *id_file);
void gb_coll_env_free(char **env);

/* Starts argv[0] with argv and envp (posix_spawn, no shell), its stdin from
 * /dev/null and its stdout and stderr appended to log_path. */
gb_err gb_coll_spawn(char *const *argv, char *const *envp, const char *log_path, pid_t *pid);

/* Waits for pid up to timeout_s (polling waitpid); *status gets the wait
 * status. GB_E_IO with a message on timeout (the process is left running). */
gb_err gb_coll_wait_child(pid_t pid, double timeout_s, int *status);

#endif
