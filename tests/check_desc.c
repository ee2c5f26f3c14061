/* Tests for gb_desc: the benchmark description table, the dtype table and
 * the HBM rule. */
#include <string.h>

#include "gb_desc.h"
#include "gb_stream.h"
#include "testutil.h"

static gb_row row(const char *bench, const char *cs, const char *metric, int64_t bytes, int gpus) {
  gb_row r = gb_row_empty();
  r.benchmark = bench;
  r.case_name = cs;
  r.metric = metric;
  r.bytes = bytes;
  r.gpu_count = gpus;
  return r;
}

START_TEST(test_every_benchmark_described) {
  static const char *const names[] = {"gemm", "membw", "copy", "collective", "fma"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const gb_bench_desc *b = gb_desc_find(names[i]);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(b->name, names[i]);
    ck_assert_ptr_nonnull(gb_desc_metric(names[i], b->headline_metric));
    for (size_t j = 0; j < b->nmetrics; j++) {
      ck_assert_int_ne(b->metrics[j].dir, GB_DIR_UNKNOWN);
      ck_assert(b->metrics[j].to_base > 0);
    }
  }
  ck_assert_ptr_null(gb_desc_find("nope"));
  ck_assert_ptr_null(gb_desc_find(NULL));
}
END_TEST

START_TEST(test_directions) {
  ck_assert_int_eq(gb_desc_direction("gemm", "tflops"), GB_DIR_HIGHER);
  ck_assert_int_eq(gb_desc_direction("collective", "time_us"), GB_DIR_LOWER);
  ck_assert_int_eq(gb_desc_direction("gemm", "time_us"), GB_DIR_UNKNOWN); /* gemm has no such metric */
  ck_assert_int_eq(gb_desc_direction("newbench", "time_us"), GB_DIR_LOWER); /* by the metric's name */
  ck_assert_int_eq(gb_desc_direction("newbench", "widgets"), GB_DIR_UNKNOWN);
  ck_assert_str_eq(gb_desc_metric("membw", "gbps")->base_unit, "bytes_per_second");
  ck_assert_double_eq(gb_desc_metric("collective", "time_us")->to_base, 1e-6);
}
END_TEST

START_TEST(test_classes) {
  gb_row r = row("collective", "all_reduce_inplace", "algbw_gbps", 64 << 20, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_MEANINGLESS);
  r.gpu_count = 8;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r = row("collective", "all_reduce_outofplace", "busbw_gbps", 64 << 20, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_MEANINGLESS);
  /* one GPU: an out-of-place collective is a local copy, information at every size */
  r.metric = "algbw_gbps";
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.bytes = (int64_t)1 << 30;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.bytes = 1 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r = row("collective", "broadcast_outofplace", "algbw_gbps", 64 << 20, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_MEANINGLESS);
  /* from 2 GPUs: headline at the bandwidth-bound size (64 MiB) and more, latency below */
  r = row("collective", "reduce_scatter_outofplace", "algbw_gbps", 16 << 20, 2);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.bytes = 32 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.bytes = GB_BW_BOUND_MIN_BYTES;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.metric = "busbw_gbps"; /* across GPUs busbw means something */
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.gpu_count = 8;
  r.bytes = (int64_t)1 << 30;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);

  r = row("gemm", "bf16", "tflops", GB_NA, 1);
  r.m = r.n = r.k = 8192;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.m = 8;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.metric = "speedup";
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_DERIVED);

  r = row("copy", "h2d_pageable", "gbps", 256 << 20, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.case_name = "h2d_pinned";
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.bytes = GB_BW_BOUND_MIN_BYTES;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.bytes = 16 << 20; /* below its bandwidth-bound size: a latency figure */
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.bytes = 1 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  /* d2d: latency below 64 MiB; at 64 MiB and more while in and out do not fit in L2 together */
  r = row("copy", "d2d", "gbps", 16 << 20, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.bytes = 256 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE); /* L2 not recorded */
  r.l2_bytes = 60 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.metric = "rw_gbps";
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.bytes = 64 << 20;
  r.l2_bytes = 200 << 20; /* 64 MiB in and out fit in a 200 MiB L2 */
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r = row("fma", "fp32", "tflops", GB_NA, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r = row("unknown", "x", "y", GB_NA, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  ck_assert_str_eq(gb_fclass_name(GB_FCLASS_LATENCY), "latency");
  ck_assert_str_eq(gb_fclass_name(GB_FCLASS_COUNT), "?");
}
END_TEST

START_TEST(test_hbm_rule) {
  gb_row r = row("membw", "triad", "gbps", (int64_t)1 << 30, 1);
  ck_assert(gb_desc_is_hbm(&r, GB_NA));
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
  r.bytes = 512 << 20;
  ck_assert(!gb_desc_is_hbm(&r, GB_NA));
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  /* a 200 MiB L2 needs arrays of 8 x 200 MiB */
  r.bytes = (int64_t)1 << 30;
  ck_assert(!gb_desc_is_hbm(&r, 200 << 20));
  ck_assert(gb_desc_is_hbm(&r, 60 << 20));
  ck_assert_int_eq(gb_hbm_min_bytes(200 << 20), (int64_t)8 * (200 << 20));
  r.metric = "time_us";
  ck_assert(!gb_desc_is_hbm(&r, GB_NA));
  ck_assert_int_lt(gb_hbm_case_rank("triad"), gb_hbm_case_rank("copy"));
  ck_assert_int_lt(gb_hbm_case_rank("copy"), gb_hbm_case_rank("dot"));
}
END_TEST

/* The membw class reads the row's own l2_bytes column. */
START_TEST(test_membw_class_reads_l2_column) {
  gb_row r = row("membw", "triad", "gbps", (int64_t)1 << 30, 1);
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE); /* L2 unknown: 1 GiB suffices */
  r.l2_bytes = 200 << 20;                                  /* 8 x 200 MiB > 1 GiB */
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_LATENCY);
  r.l2_bytes = 60 << 20;
  ck_assert_int_eq(gb_desc_class(&r), GB_FCLASS_HEADLINE);
}
END_TEST

START_TEST(test_headline_rules) {
  /* the column wins where the file has it */
  gb_row r = row("membw", "triad", "gbps", 1 << 20, 1);
  r.headline = 1;
  ck_assert(gb_desc_is_headline(&r, NULL, 0));
  r = row("membw", "triad", "gbps", (int64_t)4 << 30, 1);
  r.headline = 0;
  ck_assert(!gb_desc_is_headline(&r, NULL, 0));
  /* membw without the column: hot rows at HBM sizes */
  r.headline = -1;
  ck_assert(gb_desc_is_headline(&r, NULL, 0));
  r.case_name = "triad_cold";
  ck_assert(!gb_desc_is_headline(&r, NULL, 0));
  r.case_name = "triad";
  r.regime = "hbm-cold"; /* the regime column says cold whatever the name */
  ck_assert(!gb_desc_is_headline(&r, NULL, 0));
  r.regime = "hbm";
  r.bytes = 64 << 20;
  ck_assert(!gb_desc_is_headline(&r, NULL, 0));
  /* gemm: the largest shape of its case and dtype among the measured rows */
  gb_row g[4];
  for (int i = 0; i < 4; i++) {
    g[i] = row("gemm", "bf16", "tflops", GB_NA, 1);
    g[i].m = g[i].n = g[i].k = 1024 << i;
  }
  g[3].status = GB_STATUS_ERROR; /* a failed larger shape takes nothing away */
  ck_assert(gb_desc_is_headline(&g[2], g, 4));
  ck_assert(!gb_desc_is_headline(&g[1], g, 4));
  g[1].case_name = "fp16"; /* the only fp16 shape */
  ck_assert(gb_desc_is_headline(&g[1], g, 4));
  g[0].metric = "speedup";
  ck_assert(!gb_desc_is_headline(&g[0], g, 4));
  g[0].metric = "tops"; /* int8: the same quantity as tflops */
  g[0].case_name = "int8";
  ck_assert(gb_desc_is_headline(&g[0], g, 4));
  ck_assert(gb_desc_is_headline_metric("gemm", "tops"));
  ck_assert(!gb_desc_is_headline_metric("gemm", "speedup"));
  ck_assert(!gb_desc_is_headline_metric("collective", "busbw_gbps"));
  ck_assert(!gb_desc_is_headline_metric("copy", "rw_gbps"));
  ck_assert(!gb_desc_is_headline_metric("nope", "gbps"));
  /* collective: per GPU count, largest bytes that mean something */
  gb_row c[3] = {row("collective", "all_reduce_outofplace", "algbw_gbps", 64 << 20, 8),
                 row("collective", "all_reduce_outofplace", "algbw_gbps", 128 << 20, 8),
                 row("collective", "all_reduce_outofplace", "algbw_gbps", 256 << 20, 4)};
  ck_assert(!gb_desc_is_headline(&c[0], c, 3));
  ck_assert(gb_desc_is_headline(&c[1], c, 3));
  ck_assert(gb_desc_is_headline(&c[2], c, 3));
  c[2] = row("collective", "all_reduce_inplace", "algbw_gbps", 256 << 20, 1); /* meaningless on one rank */
  ck_assert(!gb_desc_is_headline(&c[2], c, 3));
  /* fma: every case; unknown benchmarks: none */
  r = row("fma", "fp32", "tflops", GB_NA, 1);
  ck_assert(gb_desc_is_headline(&r, NULL, 0));
  r = row("unknown", "x", "y", GB_NA, 1);
  ck_assert(!gb_desc_is_headline(&r, NULL, 0));
}
END_TEST

START_TEST(test_dtypes) {
  ck_assert_int_eq(gb_dtype_bytes("fp64"), 8);
  ck_assert_int_eq(gb_dtype_bytes("tf32"), 4);
  ck_assert_int_eq(gb_dtype_bytes("bf16"), 2);
  ck_assert_int_eq(gb_dtype_bytes("fp8e5m2"), 1);
  ck_assert_int_eq(gb_dtype_bytes("int32"), 4);
  ck_assert_int_eq(gb_dtype_bytes("fp4"), 0);
  ck_assert(!gb_dtype_find("int8")->floating);
  /* the enum indexes the table: names and sizes by code */
  ck_assert_uint_eq(gb_ndtype_descs, GB_DT_COUNT);
  ck_assert_str_eq(gb_dtype_name(GB_DT_F8E4M3), "fp8e4m3");
  ck_assert_uint_eq(gb_dtype_size(GB_DT_BF16), 2);
  ck_assert_uint_eq(gb_dtype_size(GB_DT_I32), 4);
  ck_assert_str_eq(gb_dtype_name(GB_DT_COUNT), "?");
  ck_assert_uint_eq(gb_dtype_size(GB_DT_COUNT), 0);
  char buf[256];
  const char *defs[GB_DT_COUNT];
  ck_assert(gb_dtype_defines(buf, sizeof buf, defs));
  ck_assert_str_eq(defs[GB_DT_F64], "-DDT_F64=0");
  ck_assert_str_eq(defs[GB_DT_I32], "-DDT_I32=7");
  ck_assert(!gb_dtype_defines(buf, 20, defs));
}
END_TEST

/* The STREAM kernel table: BabelStream's weights, the roofline's FLOPs and
 * the HBM case order (triad, then copy). */
START_TEST(test_stream_table) {
  ck_assert_uint_eq(gb_stream_nkernels, 7);
  ck_assert_str_eq(gb_stream_kernels[0].name, "copy");
  ck_assert_int_eq(gb_stream_find("triad")->arrays, 3);
  ck_assert_int_eq(gb_stream_find("triad")->flops, 2);
  ck_assert_int_eq(gb_stream_find("dot")->arrays, 2);
  ck_assert(gb_stream_find("read")->reduction);
  ck_assert_ptr_null(gb_stream_find("scale"));
  ck_assert_int_eq(gb_hbm_case_rank("triad"), 0);
  ck_assert_int_eq(gb_hbm_case_rank("copy"), 1);
  ck_assert_int_eq(gb_hbm_case_rank("add"), 2);
  ck_assert_int_eq(gb_hbm_case_rank("nope"), 2);
}
END_TEST

/* Metric handles: the position, name and unit of a registered metric come
 * from the registry; a row whose metric or unit the registry lacks is
 * refused (gb_rowset_add relies on it), rows of unregistered benchmarks
 * pass. */
START_TEST(test_metric_handles) {
  ck_assert_uint_eq(GB_METRIC_ID(copy, gbps), 0);
  ck_assert_uint_eq(GB_METRIC_ID(copy, rw_gbps), 1);
  ck_assert_str_eq(GB_METRIC_NAME(gemm, speedup_sustained), "speedup_sustained");
  ck_assert_str_eq(GB_METRIC_UNIT(fma, tflops), "TFLOP/s");
  ck_assert_str_eq(GB_METRIC_UNIT(collective, time_us), "us");
  ck_assert_str_eq(gb_desc_metric_at("membw", GB_METRIC_ID(membw, gbps))->name, "gbps");
  ck_assert_ptr_null(gb_desc_metric_at("membw", 1));
  ck_assert_ptr_null(gb_desc_metric_at("nope", 0));
  gb_row r = row("membw", "triad", "gbps", 1 << 30, 1);
  r.unit = "GB/s";
  ck_assert_int_eq(gb_desc_check_row(&r), GB_OK);
  r.unit = "GiB/s";
  ck_assert_int_eq(gb_desc_check_row(&r), GB_E_INTERNAL);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "GiB/s"));
  r = row("membw", "triad", "gib_per_s", 1 << 30, 1);
  r.unit = "GB/s";
  ck_assert_int_eq(gb_desc_check_row(&r), GB_E_INTERNAL);
  ck_assert_ptr_nonnull(strstr(gb_errmsg(), "gib_per_s"));
  r = row("fault", "oom", "check", GB_NA, 1);
  r.unit = "";
  ck_assert_int_eq(gb_desc_check_row(&r), GB_OK);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("desc");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_every_benchmark_described);
  tcase_add_test(tc, test_directions);
  tcase_add_test(tc, test_classes);
  tcase_add_test(tc, test_hbm_rule);
  tcase_add_test(tc, test_membw_class_reads_l2_column);
  tcase_add_test(tc, test_headline_rules);
  tcase_add_test(tc, test_dtypes);
  tcase_add_test(tc, test_stream_table);
  tcase_add_test(tc, test_metric_handles);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
