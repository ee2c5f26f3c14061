/* CPU tests of the collective benchmark: nccl-tests' byte and bus-bandwidth
 * accounting for every collective and rank count, the size sweep and plan,
 * the --opt keys, the known inputs and the result check (a corrupted buffer
 * comes out invalid) and the end-of-run table. The multi-process bootstrap:
 * tests/check_collective_boot.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_collective.h"
#include "gb_desc.h"
#include "testutil.h"

/* ---- accounting ---- */

/* A collective by name (the table's index). */
static gb_coll C(const char *name) {
  gb_coll c = -1;
  ck_assert_msg(gb_coll_parse(name, &c), "%s", name);
  return c;
}

typedef struct factor_case {
  const char *c;
  int n;
  double factor;
} factor_case;

/* all_reduce 2(n-1)/n: n=1 0, n=2 2*1/2 = 1, n=3 2*2/3 = 4/3, n=4 2*3/4 = 1.5, n=8 2*7/8 = 1.75
 * reduce_scatter, all_gather (n-1)/n: 0, 1/2, 2/3, 3/4, 7/8; broadcast 1 at every n */
static const factor_case k_factors[] = {
    {"all_reduce", 1, 0.0},         {"all_reduce", 2, 1.0},        {"all_reduce", 3, 4.0 / 3.0},
    {"all_reduce", 4, 1.5},         {"all_reduce", 8, 1.75},       {"reduce_scatter", 1, 0.0},
    {"reduce_scatter", 2, 0.5},     {"reduce_scatter", 3, 2.0 / 3.0}, {"reduce_scatter", 4, 0.75},
    {"reduce_scatter", 8, 0.875},   {"all_gather", 1, 0.0},        {"all_gather", 2, 0.5},
    {"all_gather", 3, 2.0 / 3.0},   {"all_gather", 4, 0.75},       {"all_gather", 8, 0.875},
    {"broadcast", 1, 1.0},          {"broadcast", 2, 1.0},         {"broadcast", 3, 1.0},
    {"broadcast", 4, 1.0},          {"broadcast", 8, 1.0},
    {"alltoall", 1, 0.0},           {"alltoall", 2, 0.5},          {"alltoall", 8, 0.875},
    {"sendrecv", 1, 1.0},           {"sendrecv", 2, 1.0},          {"sendrecv", 8, 1.0},
};

START_TEST(test_busbw_factor) {
  const factor_case *f = &k_factors[_i];
  ck_assert_double_eq_tol(gb_coll_busbw_factor(C(f->c), f->n), f->factor, 1e-15);
}
END_TEST

/* Which cases write a busbw row: where busbw is 0 by definition (one GPU,
 * factor (n-1)/n) only with trivial=1; sendrecv and broadcast keep factor 1
 * on one GPU (nccl-tests prints busbw = algbw there), so they write it, as
 * their detail says. */
START_TEST(test_busbw_written) {
  ck_assert(gb_coll_busbw_written(C("sendrecv"), 1, false));
  ck_assert(gb_coll_busbw_written(C("broadcast"), 1, false));
  ck_assert(!gb_coll_busbw_written(C("alltoall"), 1, false));
  ck_assert(!gb_coll_busbw_written(C("all_reduce"), 1, false));
  ck_assert(!gb_coll_busbw_written(C("reduce_scatter"), 1, false));
  ck_assert(!gb_coll_busbw_written(C("all_gather"), 1, false));
  ck_assert(gb_coll_busbw_written(C("all_reduce"), 1, true));
  ck_assert(gb_coll_busbw_written(C("alltoall"), 2, false));
  ck_assert(gb_coll_busbw_written(C("all_reduce"), 8, false));
  ck_assert(!gb_coll_busbw_written(gb_coll_count(), 2, true));
  ck_assert(!gb_coll_busbw_written(C("sendrecv"), 0, true));
}
END_TEST

START_TEST(test_bytes_and_bw) {
  const int64_t gib = (int64_t)1 << 30;
  /* all_reduce fp32 1 GiB on 8 ranks: count = 2^30/4 = 268435456 per rank, S = 1 GiB */
  ck_assert_int_eq(gb_coll_count_for_size(C("all_reduce"), gib, 4, 8), 268435456);
  ck_assert_int_eq(gb_coll_bytes(C("all_reduce"), 268435456, 4, 8), gib);
  /* all_gather fp32 1 GiB on 8 ranks: 2^28 elements / 8 = 33554432 sent per rank, S = 33554432*4*8 = 1 GiB */
  ck_assert_int_eq(gb_coll_count_for_size(C("all_gather"), gib, 4, 8), 33554432);
  ck_assert_int_eq(gb_coll_bytes(C("all_gather"), 33554432, 4, 8), gib);
  /* all_gather fp32 100 B on 3 ranks: 25 elements / 3 = 8 per rank, S = 8*4*3 = 96 */
  ck_assert_int_eq(gb_coll_count_for_size(C("all_gather"), 100, 4, 3), 8);
  ck_assert_int_eq(gb_coll_bytes(C("all_gather"), 8, 4, 3), 96);
  /* reduce_scatter bf16 8 B on 8 ranks: 4 elements / 8 = 0: no point */
  ck_assert_int_eq(gb_coll_count_for_size(C("reduce_scatter"), 8, 2, 8), 0);
  /* broadcast fp16 6 B: 3 elements, S = 6 */
  ck_assert_int_eq(gb_coll_count_for_size(C("broadcast"), 6, 2, 4), 3);
  ck_assert_int_eq(gb_coll_bytes(C("broadcast"), 3, 2, 4), 6);
  /* buffers: reduce_scatter count 5 on 4 ranks sends 20, receives 5; all_gather the reverse */
  int64_t s, r;
  gb_coll_buffer_elems(C("reduce_scatter"), 5, 4, &s, &r);
  ck_assert_int_eq(s, 20);
  ck_assert_int_eq(r, 5);
  gb_coll_buffer_elems(C("all_gather"), 5, 4, &s, &r);
  ck_assert_int_eq(s, 5);
  ck_assert_int_eq(r, 20);
  gb_coll_buffer_elems(C("all_reduce"), 5, 4, &s, &r);
  ck_assert_int_eq(s, 5);
  ck_assert_int_eq(r, 5);
  /* alltoall fp32 1 GiB on 8 ranks: 2^28 elements / 8 = 33554432 to each peer, S = 33554432*4*8 = 1 GiB;
   * bf16 100 B on 3 ranks: 50 / 3 = 16, a multiple of 16 B (8 elements), S = 16*2*3 = 96; fp32 48 B
   * on 2 ranks: 12 / 2 = 6, down to 4 (16 B), S = 32; fp32 8 B on 1 rank: 2, down to 0: no point */
  ck_assert_int_eq(gb_coll_count_for_size(C("alltoall"), gib, 4, 8), 33554432);
  ck_assert_int_eq(gb_coll_bytes(C("alltoall"), 33554432, 4, 8), gib);
  ck_assert_int_eq(gb_coll_count_for_size(C("alltoall"), 100, 2, 3), 16);
  ck_assert_int_eq(gb_coll_bytes(C("alltoall"), 16, 2, 3), 96);
  ck_assert_int_eq(gb_coll_count_for_size(C("alltoall"), 48, 4, 2), 4);
  ck_assert_int_eq(gb_coll_bytes(C("alltoall"), 4, 4, 2), 32);
  ck_assert_int_eq(gb_coll_count_for_size(C("alltoall"), 8, 4, 1), 0);
  gb_coll_buffer_elems(C("alltoall"), 5, 4, &s, &r);
  ck_assert_int_eq(s, 20);
  ck_assert_int_eq(r, 20);
  /* alltoall 1 GiB on 8 GPUs in 4 ms: algbw 268.435456, busbw x 7/8 = 234.881024; one GPU: 0 */
  ck_assert_double_eq_tol(gb_coll_busbw_gbps(C("alltoall"), 8, gib, 4e-3), 234.881024, 1e-9);
  ck_assert_double_eq(gb_coll_busbw_gbps(C("alltoall"), 1, gib, 4e-3), 0.0);
  /* sendrecv fp16 6 B on 8 ranks: 3 elements, S = 6; 1 GiB on 2 GPUs in 10 ms: algbw = busbw = 107.3741824 */
  ck_assert_int_eq(gb_coll_count_for_size(C("sendrecv"), 6, 2, 8), 3);
  ck_assert_int_eq(gb_coll_bytes(C("sendrecv"), 3, 2, 8), 6);
  gb_coll_buffer_elems(C("sendrecv"), 5, 8, &s, &r);
  ck_assert_int_eq(s, 5);
  ck_assert_int_eq(r, 5);
  ck_assert_double_eq_tol(gb_coll_busbw_gbps(C("sendrecv"), 2, gib, 10e-3), 107.3741824, 1e-9);
  ck_assert_double_eq_tol(gb_coll_busbw_gbps(C("sendrecv"), 1, gib, 10e-3), 107.3741824, 1e-9);
  /* the performance bar: 1 GiB in 509 us = 1073741824 / 509e-6 / 1e9 = 2109.51 GB/s */
  ck_assert_double_eq_tol(gb_coll_algbw_gbps(gib, 509e-6), 2109.512424, 1e-5);
  /* busbw on one GPU is 0 for all_reduce */
  ck_assert_double_eq(gb_coll_busbw_gbps(C("all_reduce"), 1, gib, 509e-6), 0.0);
  /* all_reduce 1 GiB on 8 GPUs in 5 ms: algbw 214.7483648, busbw * 1.75 = 375.8096384 */
  ck_assert_double_eq_tol(gb_coll_busbw_gbps(C("all_reduce"), 8, gib, 5e-3), 375.8096384, 1e-9);
  /* all_gather 1 GiB on 4 GPUs in 4 ms: 268.435456 * 3/4 = 201.326592 */
  ck_assert_double_eq_tol(gb_coll_busbw_gbps(C("all_gather"), 4, gib, 4e-3), 201.326592, 1e-9);
}
END_TEST

START_TEST(test_names) {
  char buf[64];
  gb_coll_case_name(C("all_reduce"), false, false, buf, sizeof buf);
  ck_assert_str_eq(buf, "all_reduce_outofplace");
  gb_coll_case_name(C("reduce_scatter"), true, true, buf, sizeof buf);
  ck_assert_str_eq(buf, "reduce_scatter_inplace_mp");
  gb_coll c;
  ck_assert(gb_coll_parse("all_gather", &c));
  ck_assert_int_eq(c, C("all_gather"));
  ck_assert(!gb_coll_parse("allreduce", &c));
  gb_coll_dtype t;
  ck_assert(gb_coll_dtype_parse("bf16", &t));
  ck_assert_int_eq(t, GB_COLL_BF16);
  ck_assert_int_eq(gb_coll_dtype_size(GB_COLL_FP16), 2);
  ck_assert_int_eq(gb_coll_dtype_size(GB_COLL_FP32), 4);
}
END_TEST

/* alltoall: out of place only (nccl-tests has no in-place form); one GPU:
 * quick fp32 at 64 KiB, 16 MiB, 1 GiB; full: per dtype every size from the
 * first that holds 16 bytes per peer (fp32 and fp16/bf16 16 B: 27 sizes). */
START_TEST(test_plan_alltoall) {
  gb_coll_opts o;
  static gb_coll_point p[4096];
  int one[] = {1}, eight[] = {8};
  ck_assert_int_eq(gb_coll_opts_parse("colls=alltoall", &o), GB_OK);
  ck_assert_uint_eq(gb_coll_plan_points(&o, false, one, 1, p, 4096), 3);
  ck_assert_int_eq(p[0].size_bytes, 64 << 10);
  ck_assert_int_eq(p[2].bytes, (int64_t)1 << 30);
  ck_assert_uint_eq(gb_coll_plan_points(&o, true, one, 1, p, 4096), 3 * 27);
  for (size_t i = 0; i < 3 * 27; i++) ck_assert(!p[i].inplace);
  /* 8 ranks, fp32: 16 B x 8 = 128 B is the first size (2^7): 24 sizes; bf16/fp16 the same bytes */
  ck_assert_uint_eq(gb_coll_plan_points(&o, true, eight, 1, p, 4096), 3 * 24);
  ck_assert_int_eq(p[0].size_bytes, 128);
  ck_assert_int_eq(p[0].count, 4);
  ck_assert_int_eq(p[0].bytes, 128);
}
END_TEST

/* Every metric the benchmark writes is in the registry, which gives its
 * unit and direction (core/gb_registry.def); the table's names are unique
 * and each entry has its NCCL call. */
START_TEST(test_registry_and_table) {
  static const char *const units[GB_COLL_NMETRICS] = {"us", "GB/s", "GB/s"};
  static const gb_dir dirs[GB_COLL_NMETRICS] = {GB_DIR_LOWER, GB_DIR_HIGHER, GB_DIR_HIGHER};
  for (int m = 0; m < GB_COLL_NMETRICS; m++) {
    const gb_metric_desc *md = gb_desc_metric("collective", gb_coll_metrics[m]);
    ck_assert_msg(md != NULL, "%s not in the registry", gb_coll_metrics[m]);
    ck_assert_str_eq(md->unit, units[m]);
    ck_assert_int_eq(md->dir, dirs[m]);
  }
  ck_assert_int_ge(gb_coll_count(), 4);
  ck_assert_int_le(gb_coll_count(), 32); /* colls= is a bit mask */
  for (gb_coll c = 0; c < gb_coll_count(); c++) {
    const gb_coll_desc *d = gb_coll_desc_of(c);
    ck_assert_ptr_nonnull(d->enqueue);
    ck_assert_ptr_nonnull(d->op_note);
    gb_coll back;
    ck_assert(gb_coll_parse(d->name, &back));
    ck_assert_int_eq(back, c);
    char name[64];
    gb_coll_case_name(c, false, true, name, sizeof name);
    ck_assert(gb_coll_of_case(name, &back));
    ck_assert_int_eq(back, c);
  }
  ck_assert_ptr_null(gb_coll_desc_of(gb_coll_count()));
  ck_assert_ptr_null(gb_coll_desc_of(-1));
  ck_assert_str_eq(gb_coll_name(-1), "?");
  ck_assert(isnan(gb_coll_busbw_factor(gb_coll_count(), 2)));
  ck_assert(isnan(gb_coll_busbw_factor(0, 0)));
  gb_coll c;
  ck_assert(!gb_coll_of_case("all_reduce", &c));
  ck_assert(!gb_coll_of_case("all_reducex_inplace", &c));
}
END_TEST

/* ---- sweep and plan ---- */

START_TEST(test_size_sweep) {
  int64_t s[GB_COLL_MAX_SIZES];
  /* 8 B .. 1 GiB doubling: 8 = 2^3 .. 2^30: 28 sizes */
  size_t n = gb_coll_size_sweep(8, (int64_t)1 << 30, 2, s, GB_COLL_MAX_SIZES);
  ck_assert_uint_eq(n, 28);
  ck_assert_int_eq(s[0], 8);
  ck_assert_int_eq(s[1], 16);
  ck_assert_int_eq(s[27], (int64_t)1 << 30);
  /* factor 4: 8, 32, ..., 8*4^13 = 2^29 (14 sizes), then max 2^30 appended */
  n = gb_coll_size_sweep(8, (int64_t)1 << 30, 4, s, GB_COLL_MAX_SIZES);
  ck_assert_uint_eq(n, 15);
  ck_assert_int_eq(s[13], (int64_t)1 << 29);
  ck_assert_int_eq(s[14], (int64_t)1 << 30);
  /* 3, 30, then 300 > 100: max appended */
  n = gb_coll_size_sweep(3, 100, 10, s, GB_COLL_MAX_SIZES);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(s[2], 100);
  ck_assert_uint_eq(gb_coll_size_sweep(8, 8, 2, s, GB_COLL_MAX_SIZES), 1);
  /* bad arguments */
  ck_assert_uint_eq(gb_coll_size_sweep(0, 8, 2, s, GB_COLL_MAX_SIZES), 0);
  ck_assert_uint_eq(gb_coll_size_sweep(16, 8, 2, s, GB_COLL_MAX_SIZES), 0);
  ck_assert_uint_eq(gb_coll_size_sweep(8, 64, 1, s, GB_COLL_MAX_SIZES), 0);
  /* no overflow near INT64_MAX: 2^62 doubles no further */
  n = gb_coll_size_sweep((int64_t)1 << 62, INT64_MAX, 2, s, GB_COLL_MAX_SIZES);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(s[1], INT64_MAX);
}
END_TEST

START_TEST(test_gpu_counts) {
  int c[16];
  ck_assert_int_eq(gb_coll_gpu_counts(8, c, 16), 4);
  ck_assert_int_eq(c[0], 1);
  ck_assert_int_eq(c[3], 8);
  ck_assert_int_eq(gb_coll_gpu_counts(6, c, 16), 4); /* 1 2 4 6 */
  ck_assert_int_eq(c[3], 6);
  ck_assert_int_eq(gb_coll_gpu_counts(3, c, 16), 3); /* 1 2 3 */
  ck_assert_int_eq(c[2], 3);
  ck_assert_int_eq(gb_coll_gpu_counts(1, c, 16), 1);
  ck_assert_int_eq(gb_coll_gpu_counts(0, c, 16), 0);
}
END_TEST

START_TEST(test_plan) {
  gb_coll_opts o;
  /* the four collectives these counts were written for */
  ck_assert_int_eq(gb_coll_opts_parse("colls=all_reduce:reduce_scatter:all_gather:broadcast", &o), GB_OK);
  static gb_coll_point p[4096];
  int one[] = {1}, two[] = {1, 2}, eight[] = {8};
  /* quick, one GPU: all_reduce fp32 28 sizes out-of-place (one rank in place moves no data: not
   * planned), plus 3 sizes (64 KiB, 16 MiB, 1 GiB) out-of-place for all_reduce bf16, fp16 and
   * reduce_scatter, all_gather fp32 (a one-GPU broadcast is a local copy: not planned): 4 x 3 = 12;
   * 40 in all */
  size_t n = gb_coll_plan_points(&o, false, one, 1, p, 4096);
  ck_assert_uint_eq(n, 40);
  ck_assert_int_eq(p[0].coll, C("all_reduce"));
  ck_assert_int_eq(p[0].dtype, GB_COLL_FP32);
  ck_assert_int_eq(p[0].size_bytes, 8);
  ck_assert(!p[0].inplace);
  ck_assert(!p[1].inplace);
  ck_assert_int_eq(p[1].size_bytes, 16);
  ck_assert_int_eq(p[27].size_bytes, (int64_t)1 << 30);
  ck_assert_int_eq(p[28].dtype, GB_COLL_BF16);
  ck_assert_int_eq(p[28].size_bytes, 64 << 10);
  ck_assert_int_eq(p[39].coll, C("all_gather"));
  ck_assert_int_eq(p[39].bytes, (int64_t)1 << 30);
  for (size_t i = 0; i < n; i++) ck_assert(!p[i].inplace && p[i].coll != C("broadcast"));
  /* full, counts 1 and 2: 4 collectives x 3 dtypes x 28 sizes x 2 placements on 2 ranks; on one,
   * out-of-place only and no broadcast: 3 x 3 x 28. Every size holds at least one element per rank
   * (8 B / 2 B / 2 ranks = 2) */
  ck_assert_uint_eq(gb_coll_plan_points(&o, true, two, 2, p, 4096), 4 * 3 * 28 * 2 + 3 * 3 * 28);
  /* full on 8 ranks: reduce_scatter and all_gather drop the sizes under 8 elements: fp32 8 and 16 B
   * (2 sizes), bf16/fp16 8 B (1 size): (2+1+1) x 2 collectives x 2 placements = 16 fewer */
  ck_assert_uint_eq(gb_coll_plan_points(&o, true, eight, 1, p, 4096), 4 * 3 * 28 * 2 - 16);
  /* a capacity below the count still counts them all */
  ck_assert_uint_eq(gb_coll_plan_points(&o, false, one, 1, p, 3), 40);
  /* trivial=1: the one-rank figures too, as before (quick: 56 + 15 = 71) */
  ck_assert_int_eq(gb_coll_opts_parse("trivial=1,colls=all_reduce:reduce_scatter:all_gather:broadcast", &o), GB_OK);
  ck_assert(o.trivial);
  ck_assert_uint_eq(gb_coll_plan_points(&o, false, one, 1, p, 4096), 71);
  ck_assert_int_eq(gb_coll_opts_parse("trivial=2", &o), GB_E_USAGE);
  /* filters: broadcast only, bf16, in-place, full: 28 points (with trivial=1 on one GPU; none without) */
  ck_assert_int_eq(gb_coll_opts_parse("colls=broadcast,dtypes=bf16,place=inplace", &o), GB_OK);
  ck_assert_uint_eq(gb_coll_plan_points(&o, true, one, 1, p, 4096), 0);
  ck_assert_int_eq(gb_coll_opts_parse("colls=broadcast,dtypes=bf16,place=inplace,trivial=1", &o), GB_OK);
  ck_assert_uint_eq(gb_coll_plan_points(&o, true, one, 1, p, 4096), 28);
  ck_assert(p[0].inplace);
}
END_TEST

START_TEST(test_opts) {
  gb_coll_opts o;
  ck_assert_int_eq(gb_coll_opts_parse(NULL, &o), GB_OK);
  ck_assert_int_eq(o.mp, 0);
  ck_assert_int_eq(o.min_bytes, 8);
  ck_assert_int_eq(o.max_bytes, (int64_t)1 << 30);
  ck_assert_int_eq(o.factor, 2);
  ck_assert_int_eq(o.ops, 20);
  ck_assert_uint_eq(o.colls, (1u << gb_coll_count()) - 1);
  ck_assert_uint_eq(o.dtypes, 7);
  ck_assert_uint_eq(o.placements, 3);
  ck_assert_int_eq(gb_coll_opts_parse("mp=4,min=1K,max=64M,factor=4,ops=5,colls=all_reduce:broadcast,"
                                      "dtypes=bf16+fp16,place=outofplace,timeout=30,id_file=/x/id,n=3,"
                                      "collective.ops=7", &o),
                   GB_OK);
  ck_assert_int_eq(o.mp, 4);
  ck_assert_int_eq(o.min_bytes, 1024);
  ck_assert_int_eq(o.max_bytes, 64 << 20);
  ck_assert_int_eq(o.factor, 4);
  ck_assert_int_eq(o.ops, 7); /* the prefixed key came last */
  ck_assert_uint_eq(o.colls, (1u << C("all_reduce")) | (1u << C("broadcast")));
  ck_assert_uint_eq(o.dtypes, (1u << GB_COLL_BF16) | (1u << GB_COLL_FP16));
  ck_assert_uint_eq(o.placements, 1);
  ck_assert_double_eq(o.timeout_s, 30.0);
  ck_assert_str_eq(o.id_file, "/x/id");
  ck_assert_int_eq(gb_coll_opts_parse("mp=launcher", &o), GB_OK);
  ck_assert_int_eq(o.mp, GB_COLL_MP_LAUNCHER);
  /* errors */
  const char *bad[] = {"collective.bogus=1", "factor=1", "colls=all_reduce:foo", "max=8,min=16", "mp",
                       "mp=-2",              "ops=0",    "min=0",                "timeout=0",    "dtypes=",
                       "=3"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(gb_coll_opts_parse(bad[i], &o), GB_E_USAGE);
    ck_assert(strlen(gb_errmsg()) > 0);
  }
  gb_coll_opts_parse("colls=all_reduce:foo", &o);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "\"foo\""));
}
END_TEST

/* ---- inputs, expected values, the check ---- */

START_TEST(test_input_values) {
  int hist[9] = {0};
  for (int r = 0; r < 8; r++)
    for (uint64_t i = 0; i < 4000; i++) {
      int v = gb_coll_input_value(r, i, 1234);
      ck_assert(v != 0 && v >= -4 && v <= 4);
      hist[v + 4]++;
      ck_assert_int_eq(v, gb_coll_input_value(r, i, 1234)); /* deterministic */
    }
  /* 32000 draws over 8 values: each near 4000 */
  for (int v = -4; v <= 4; v++)
    if (v != 0) ck_assert(hist[v + 4] > 3500 && hist[v + 4] < 4500);
  /* ranks and seeds give different data */
  int same_rank = 0, same_seed = 0;
  for (uint64_t i = 0; i < 1000; i++) {
    same_rank += gb_coll_input_value(0, i, 1) == gb_coll_input_value(1, i, 1);
    same_seed += gb_coll_input_value(0, i, 1) == gb_coll_input_value(0, i, 2);
  }
  ck_assert_int_lt(same_rank, 250); /* 1/8 expected by chance */
  ck_assert_int_lt(same_seed, 250);
}
END_TEST

START_TEST(test_expected) {
  uint32_t seed = 99;
  int v[3][20];
  for (int q = 0; q < 3; q++)
    for (int k = 0; k < 20; k++) v[q][k] = gb_coll_input_value(q, (uint64_t)k, seed);
  ck_assert_int_eq(gb_coll_expected(C("all_reduce"), 1, 3, 20, 4, seed), v[0][4] + v[1][4] + v[2][4]);
  /* reduce_scatter count 5: rank 1 element 2 is the sum of index 1*5+2 = 7 */
  ck_assert_int_eq(gb_coll_expected(C("reduce_scatter"), 1, 3, 5, 2, seed), v[0][7] + v[1][7] + v[2][7]);
  /* all_gather count 5: element 7 is rank 1's element 2 */
  ck_assert_int_eq(gb_coll_expected(C("all_gather"), 0, 3, 5, 7, seed), v[1][2]);
  ck_assert_int_eq(gb_coll_expected(C("broadcast"), 2, 3, 20, 11, seed), v[0][11]);
  /* alltoall count 5: rank 2's element 7 is block 1 (from rank 1), rank 1's element 2*5+2 = 12 */
  ck_assert_int_eq(gb_coll_expected(C("alltoall"), 2, 3, 5, 7, seed), v[1][12]);
  /* sendrecv: rank 0 receives rank 2's (0-1+3 = 2) element */
  ck_assert_int_eq(gb_coll_expected(C("sendrecv"), 0, 3, 20, 9, seed), v[2][9]);
}
END_TEST

START_TEST(test_conversions) {
  ck_assert_uint_eq(gb_coll_f32_to_bf16(1.0f), 0x3f80);
  ck_assert_uint_eq(gb_coll_f32_to_bf16(-2.0f), 0xc000);
  ck_assert_uint_eq(gb_coll_f32_to_f16(1.0f), 0x3c00);
  ck_assert_uint_eq(gb_coll_f32_to_f16(-2.0f), 0xc000);
  ck_assert_uint_eq(gb_coll_f32_to_f16(65504.0f), 0x7bff);
  ck_assert_uint_eq(gb_coll_f32_to_f16(65536.0f), 0x7c00);   /* overflow to inf */
  ck_assert_uint_eq(gb_coll_f32_to_f16(NAN), 0x7e00);
  ck_assert_uint_eq(gb_coll_f32_to_f16(5.9604645e-8f), 0x0001); /* 2^-24, the smallest subnormal */
  ck_assert_uint_eq(gb_coll_f32_to_f16(2049.0f), 0x6800);    /* tie: 2048 (even) */
  ck_assert_uint_eq(gb_coll_f32_to_f16(2051.0f), 0x6802);    /* tie: 2052 (even) */
  ck_assert_uint_eq(gb_coll_f32_to_bf16(257.0f), 0x4380);    /* tie: 256 */
  ck_assert(isnan(gb_coll_bf16_to_f32(gb_coll_f32_to_bf16(NAN))));
  ck_assert(isnan(gb_coll_f16_to_f32(0x7e00)));
  ck_assert_float_eq(gb_coll_f16_to_f32(0x0001), 5.9604645e-8f);
  /* every integer a sum of up to 64 ranks can reach (|x| <= 256) is exact in both */
  for (int x = -256; x <= 256; x++) {
    ck_assert_float_eq(gb_coll_bf16_to_f32(gb_coll_f32_to_bf16((float)x)), (float)x);
    ck_assert_float_eq(gb_coll_f16_to_f32(gb_coll_f32_to_f16((float)x)), (float)x);
  }
}
END_TEST

static float load(const void *b, int64_t i, gb_coll_dtype t) {
  if (t == GB_COLL_FP32) return ((const float *)b)[i];
  uint16_t h = ((const uint16_t *)b)[i];
  return t == GB_COLL_BF16 ? gb_coll_bf16_to_f32(h) : gb_coll_f16_to_f32(h);
}

static void store(void *b, int64_t i, gb_coll_dtype t, float v) {
  if (t == GB_COLL_FP32) ((float *)b)[i] = v;
  else if (t == GB_COLL_BF16) ((uint16_t *)b)[i] = gb_coll_f32_to_bf16(v);
  else ((uint16_t *)b)[i] = gb_coll_f32_to_f16(v);
}

/* Simulates each collective on the host from the per-rank inputs, checks
 * that the result has no wrong element, then corrupts it. */
START_TEST(test_check_catches_corruption) {
  gb_coll_dtype t = (gb_coll_dtype)_i;
  const int n = 4;
  const int64_t count = 300;
  const uint32_t seed = 7;
  const int me = 2;
  void *in[4], *out = malloc((size_t)(n * count) * 4);
  for (int q = 0; q < n; q++) {
    in[q] = malloc((size_t)(n * count) * 4);
    gb_coll_fill_host(in[q], n * count, t, q, 0, seed);
  }
  for (gb_coll c = 0; c < gb_coll_count(); c++) {
    const char *name = gb_coll_name(c);
    int64_t send_elems, elems;
    gb_coll_buffer_elems(c, count, n, &send_elems, &elems);
    for (int64_t k = 0; k < elems; k++) {
      float v = 0;
      if (strcmp(name, "all_reduce") == 0)
        for (int q = 0; q < n; q++) v += load(in[q], k, t);
      else if (strcmp(name, "reduce_scatter") == 0)
        for (int q = 0; q < n; q++) v += load(in[q], me * count + k, t);
      else if (strcmp(name, "all_gather") == 0) v = load(in[k / count], k % count, t);
      else if (strcmp(name, "broadcast") == 0) v = load(in[0], k, t);
      else if (strcmp(name, "sendrecv") == 0) v = load(in[(me - 1 + n) % n], k, t);
      else if (strcmp(name, "alltoall") == 0) v = load(in[k / count], me * count + k % count, t);
      else ck_abort_msg("no host model of %s", name);
      store(out, k, t, v);
    }
    ck_assert_uint_eq(gb_coll_count_wrong_host((gb_coll)c, t, me, n, count, seed, out, elems), 0);
    ck_assert_int_eq(gb_coll_status_of(0), GB_STATUS_OK);
    /* one element off by one, one left unwritten (NaN poison), one sign flipped */
    store(out, 17, t, load(out, 17, t) + 1.0f);
    store(out, 18, t, NAN);
    store(out, elems - 1, t, load(out, elems - 1, t) == 0 ? 1.0f : -load(out, elems - 1, t));
    uint64_t wrong = gb_coll_count_wrong_host((gb_coll)c, t, me, n, count, seed, out, elems);
    ck_assert_uint_eq(wrong, 3);
    ck_assert_int_eq(gb_coll_status_of(wrong), GB_STATUS_INVALID);
    /* the wrong rank's view of a correct reduce_scatter is wrong too */
    if (strcmp(name, "reduce_scatter") == 0) {
      store(out, 17, t, load(out, 17, t) - 1.0f);
      ck_assert_uint_gt(gb_coll_count_wrong_host((gb_coll)c, t, me + 1, n, count, seed, out, elems), count / 2);
    }
  }
  for (int q = 0; q < n; q++) free(in[q]);
  free(out);
}
END_TEST

/* ---- the end-of-run table ---- */

START_TEST(test_summary) {
  gb_row rows[6];
  const char *metrics[3] = {"time_us", "algbw_gbps", "busbw_gbps"};
  double values[2][3] = {{509.0, 2109.5, 0.0}, {20.0, 52.4, 104.8}}; /* the one-GPU busbw row is left out below */
  int gpus[2] = {1, 2};
  for (int p = 0; p < 2; p++)
    for (int m = 0; m < 3; m++) {
      gb_row *r = &rows[p * 3 + m];
      *r = gb_row_empty();
      r->benchmark = "collective";
      r->case_name = "all_reduce_outofplace";
      r->dtype = "fp32";
      r->bytes = p == 0 ? (int64_t)1 << 30 : (int64_t)1 << 20;
      r->gpu_count = gpus[p];
      r->metric = metrics[m];
      r->value = values[p][m];
      r->status = GB_STATUS_OK;
    }
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  rows[2] = rows[5]; /* no busbw row on one GPU (not written unless trivial=1) */
  gb_coll_summary_print(rows, 5, fp);
  fclose(fp);
  ck_assert_ptr_nonnull(strstr(text, "busbw GB/s"));
  ck_assert_ptr_nonnull(strstr(text, "2109.50            -  ok *")); /* one GPU: algbw, busbw "-" */
  ck_assert_ptr_nonnull(strstr(text, "1 GiB"));
  ck_assert_ptr_nonnull(strstr(text, "2109.50"));
  ck_assert_ptr_nonnull(strstr(text, "104.80"));
  ck_assert_ptr_nonnull(strstr(text, "busbw is 0 on one GPU by definition"));
  free(text);
  /* sendrecv on one GPU: its busbw row (factor 1) is printed, unmarked */
  for (int i = 0; i < 6; i++) {
    rows[i].case_name = "sendrecv_outofplace";
    rows[i].gpu_count = 1;
    rows[i].bytes = (int64_t)1 << 30;
  }
  rows[0].metric = "algbw_gbps";
  rows[0].value = 1816.0;
  rows[1].metric = "busbw_gbps";
  rows[1].value = 1816.0;
  text = NULL;
  fp = open_memstream(&text, &len);
  gb_coll_summary_print(rows, 2, fp);
  fclose(fp);
  ck_assert_ptr_nonnull(strstr(text, "1816.00      1816.00  ok\n"));
  ck_assert_ptr_null(strstr(text, "by definition"));
  free(text);
  text = NULL;
  fp = open_memstream(&text, &len);
  gb_coll_summary_print(rows, 0, fp);
  fclose(fp);
  ck_assert_uint_eq(len, 0);
  free(text);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("collective");
  TCase *acc = tcase_create("accounting");
  tcase_add_loop_test(acc, test_busbw_factor, 0, (int)(sizeof k_factors / sizeof k_factors[0]));
  tcase_add_test(acc, test_busbw_written);
  tcase_add_test(acc, test_bytes_and_bw);
  tcase_add_test(acc, test_names);
  tcase_add_test(acc, test_registry_and_table);
  suite_add_tcase(s, acc);
  TCase *plan = tcase_create("plan");
  tcase_add_test(plan, test_size_sweep);
  tcase_add_test(plan, test_gpu_counts);
  tcase_add_test(plan, test_plan);
  tcase_add_test(plan, test_plan_alltoall);
  tcase_add_test(plan, test_opts);
  tcase_add_test(plan, test_summary);
  suite_add_tcase(s, plan);
  TCase *check = tcase_create("check");
  tcase_add_test(check, test_input_values);
  tcase_add_test(check, test_expected);
  tcase_add_test(check, test_conversions);
  tcase_add_loop_test(check, test_check_catches_corruption, 0, GB_COLL_DTYPE_COUNT);
  suite_add_tcase(s, check);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
