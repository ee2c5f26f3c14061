/* gemm_grouped: the grouped GEMM's pure parts (bench_gemm.h): the MoE model
 * table, the grouped shapes and precisions of each profile, FLOPs, case
 * names and cases, the groups the check compares. No CUDA calls: tested on
 * the CPU. Called by gemm_plan.c (the grouped cases), gemm_op.c (FLOPs, the
 * checked groups' offsets) and gemm_check.c (the checked groups). */
#include <stdio.h>
#include <string.h>

#include "bench_gemm.h"

/* Published configurations (the models' config.json on Hugging Face):
 * hidden_size, the expert FFN width (intermediate_size for Mixtral and
 * gpt-oss, moe_intermediate_size for DeepSeek and Qwen3), the routed
 * experts and the experts per token. DeepSeek-V3's shared expert is a dense
 * GEMM, not part of the grouped one. */
static const gb_gemm_moe gb_gemm_moe_table[] = {
    {.model = "mixtral-8x7b", .hidden = 4096, .ffn = 14336, .experts = 8, .top_k = 2},
    {.model = "deepseek-v3", .hidden = 7168, .ffn = 2048, .experts = 256, .top_k = 8},
    {.model = "qwen3-30b-a3b", .hidden = 2048, .ffn = 768, .experts = 128, .top_k = 8},
    {.model = "qwen3-235b-a22b", .hidden = 4096, .ffn = 1536, .experts = 128, .top_k = 8},
    {.model = "gpt-oss-120b", .hidden = 2880, .ffn = 2880, .experts = 128, .top_k = 4},
};
#define NMOES (sizeof gb_gemm_moe_table / sizeof gb_gemm_moe_table[0])

const gb_gemm_moe *gb_gemm_moes(size_t *n) {
  *n = NMOES;
  return gb_gemm_moe_table;
}

const gb_gemm_moe *gb_gemm_moe_find(const char *model) {
  for (size_t i = 0; i < NMOES; i++)
    if (strcmp(gb_gemm_moe_table[i].model, model) == 0) return &gb_gemm_moe_table[i];
  return NULL;
}

gb_gemm_gshape gb_gemm_moe_shape(const gb_gemm_moe *moe, gb_gemm_proj proj, int64_t tokens_per_expert) {
  bool up = proj == GB_GEMM_PROJ_UP;
  return (gb_gemm_gshape){.groups = moe->experts, .m = tokens_per_expert, .n = up ? moe->ffn : moe->hidden,
                          .k = up ? moe->hidden : moe->ffn, .model = moe->model, .proj = up ? "up" : "down"};
}

double gb_gemm_tokens_per_expert(int64_t tokens, int top_k, int64_t experts) {
  return experts > 0 ? (double)tokens * top_k / (double)experts : 0;
}

/* The quick profile's grouped shapes: the fine-grained experts, where a
 * dense figure says least: DeepSeek-V3 at the few tokens per expert its
 * 256-way routing leaves (HBM-bound) and Qwen3-30B-A3B at 512 (compute-bound,
 * each expert under one wave of tiles). Two shapes in two precisions: ~4 s
 * on an H100 (three shapes took 6.1 s). */
static const struct {
  const char *model;
  int64_t tokens;
} quick_shapes[] = {{"deepseek-v3", 128}, {"qwen3-30b-a3b", 512}};

static const int64_t full_tokens[] = {128, 512, 2048};

size_t gb_gemm_grouped_shapes(gb_profile profile, gb_gemm_gshape *out, size_t cap) {
  size_t i = 0;
  if (profile == GB_PROFILE_QUICK) {
    for (size_t q = 0; q < sizeof quick_shapes / sizeof quick_shapes[0]; q++, i++)
      if (i < cap) out[i] = gb_gemm_moe_shape(gb_gemm_moe_find(quick_shapes[q].model), GB_GEMM_PROJ_UP,
                                              quick_shapes[q].tokens);
    return i;
  }
  for (size_t mo = 0; mo < NMOES; mo++) {
    const gb_gemm_moe *moe = &gb_gemm_moe_table[mo];
    /* where hidden = ffn (gpt-oss) down is up's shape: measured once */
    int last = moe->hidden == moe->ffn ? GB_GEMM_PROJ_UP : GB_GEMM_PROJ_DOWN;
    for (size_t t = 0; t < sizeof full_tokens / sizeof full_tokens[0]; t++)
      for (int pr = GB_GEMM_PROJ_UP; pr <= last; pr++, i++)
        if (i < cap) out[i] = gb_gemm_moe_shape(moe, (gb_gemm_proj)pr, full_tokens[t]);
  }
  return i;
}

size_t gb_gemm_grouped_precs(gb_profile profile, const gb_gemm_prec **out, size_t cap) {
  static const char *const quick[] = {"bf16", "fp8e4m3_fastacc"};
  static const char *const full[] = {"bf16", "fp16", "fp8e4m3_slowacc", "fp8e4m3_fastacc"};
  bool q = profile == GB_PROFILE_QUICK;
  size_t n = q ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  for (size_t i = 0; i < n && i < cap; i++) out[i] = gb_gemm_prec_find(q ? quick[i] : full[i]);
  return n;
}

/* 2 m n k per group: m n dot products of length k in each of the G products. */
double gb_gemm_grouped_flops(int64_t groups, int64_t m, int64_t n, int64_t k) {
  return gb_gemm_flops(m, n, k) * (double)groups;
}

#define GROUPED_PREFIX "grouped_"

const char *gb_gemm_grouped_case_name(const gb_gemm_prec *p, char *buf, size_t n) {
  snprintf(buf, n, GROUPED_PREFIX "%s", p->name);
  return buf;
}

const gb_gemm_prec *gb_gemm_grouped_case_parse(const char *case_name) {
  size_t pl = strlen(GROUPED_PREFIX);
  if (!case_name || strncmp(case_name, GROUPED_PREFIX, pl) != 0) return NULL;
  return gb_gemm_prec_find(case_name + pl);
}

size_t gb_gemm_check_groups(int64_t groups, int64_t *out, size_t cap) {
  if (groups < 1) return 0;
  size_t n = groups <= GB_GEMM_CHECK_GROUPS ? (size_t)groups : GB_GEMM_CHECK_GROUPS;
  for (size_t i = 0; i < n && i < cap; i++)
    out[i] = n == (size_t)groups ? (int64_t)i : (int64_t)i * (groups - 1) / (int64_t)(n - 1);
  return n;
}

gb_case gb_gemm_make_grouped_case(const gb_gemm_prec *p, const gb_gemm_gshape *s) {
  char name[64];
  gb_case c = gb_case_init(gb_gemm_grouped_case_name(p, name, sizeof name), p->dtype);
  c.m = s->m;
  c.n = s->n;
  c.k = s->k;
  c.groups = s->groups;
  c.param[0] = (long)GB_GEMM_TN;
  c.spec = p;
  return c;
}
