/* gb_store_key: a row's identity in its run (gb_rows.rkey). The fields that
 * make a row a distinct sample -- host, GPU, variant, then the figure
 * (benchmark, case, dtype, m, n, k, bytes, gpu_count, settings, metric,
 * groups) and rep -- each written as its length, ':', its bytes, so that no
 * field's text can pass for a separator or for another field, with no
 * length limit; the SHA-256 of that, in hex, is the key (64 characters, so
 * a long case name never meets an index's size limit, and two distinct rows
 * would need a SHA-256 collision to share one). Called by gb_store_io.c
 * (each row added) and gb_store.c (schema step 5); it calls down into
 * gb_store_sql.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_store_int.h"

/* ---- SHA-256 (FIPS 180-4) ---- */

typedef struct sha256 {
  uint32_t h[8];
  uint8_t block[64];
  size_t fill;
  uint64_t bits;
} sha256;

static const uint32_t k_round[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void sha_block(sha256 *c) {
  uint32_t w[64], v[8];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)c->block[4 * i] << 24 | (uint32_t)c->block[4 * i + 1] << 16 | (uint32_t)c->block[4 * i + 2] << 8 |
           c->block[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  memcpy(v, c->h, sizeof v);
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
                  k_round[i] + w[i];
    uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
    memmove(v + 1, v, 7 * sizeof v[0]);
    v[4] += t1;
    v[0] = t1 + t2;
  }
  for (int i = 0; i < 8; i++) c->h[i] += v[i];
}

static void sha_init(sha256 *c) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, h0, sizeof h0);
  c->fill = 0;
  c->bits = 0;
}

static void sha_add(sha256 *c, const void *data, size_t n) {
  const uint8_t *p = data;
  c->bits += (uint64_t)n * 8;
  while (n) {
    size_t k = 64 - c->fill < n ? 64 - c->fill : n;
    memcpy(c->block + c->fill, p, k);
    c->fill += k, p += k, n -= k;
    if (c->fill == 64) {
      sha_block(c);
      c->fill = 0;
    }
  }
}

static void sha_hex(sha256 *c, char out[65]) {
  uint64_t bits = c->bits;
  uint8_t pad = 0x80, zero = 0, len[8];
  sha_add(c, &pad, 1);
  while (c->fill != 56) sha_add(c, &zero, 1);
  for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
  sha_add(c, len, 8);
  for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", (unsigned)c->h[i]);
}

void gb_store_sha256_hex(const void *data, size_t n, char out[65]) {
  sha256 c;
  sha_init(&c);
  sha_add(&c, data, n);
  sha_hex(&c, out);
}

/* ---- the key ---- */

const char *const gb_store_key_cols[GB_STORE_KEY_NCOLS] = {
    "host", "gpu_uuid", "variant", "benchmark", "case", "dtype", "m", "n",
    "k", "bytes", "gpu_count", "settings", "metric", "groups", "rep"};

void gb_store_rkey(const char *const field[GB_STORE_KEY_NCOLS], char out[65]) {
  sha256 c;
  sha_init(&c);
  for (size_t i = 0; i < GB_STORE_KEY_NCOLS; i++) {
    const char *f = field[i] ? field[i] : "";
    char len[24];
    int k = snprintf(len, sizeof len, "%zu:", strlen(f));
    sha_add(&c, len, (size_t)k);
    sha_add(&c, f, strlen(f));
  }
  sha_hex(&c, out);
}

gb_err gb_store_row_rkey(const gb_row *r, char out[65]) {
  static size_t col[GB_STORE_KEY_NCOLS]; /* the key's columns in the results format, found once */
  static bool found;
  if (!found) {
    for (size_t i = 0; i < GB_STORE_KEY_NCOLS; i++) {
      size_t c = 1;
      while (c < gb_results_ncols() && strcmp(gb_results_col_name(c), gb_store_key_cols[i]) != 0) c++;
      if (c == gb_results_ncols()) return gb_fail(GB_E_INTERNAL, "no results column %s", gb_store_key_cols[i]);
      col[i] = c;
    }
    found = true;
  }
  char num[GB_STORE_KEY_NCOLS][64];
  const char *field[GB_STORE_KEY_NCOLS];
  for (size_t i = 0; i < GB_STORE_KEY_NCOLS; i++) field[i] = gb_results_field(r, col[i], num[i]);
  gb_store_rkey(field, out);
  return GB_OK;
}

/* ---- schema step 5 ---- */

gb_err gb_store_rebuild_v5(gb_store *s, size_t ncols) {
  gb_buf ddl = {0}, cols = {0}, copy = {0};
  gb_err e = gb_store_rows_ddl(s, "gb_rows_v5", ncols, true, &ddl);
  if (!e) e = gb_buf_puts(&cols, "id, khash");
  for (size_t i = 1; i < ncols && !e; i++) e = gb_buf_printf(&cols, ", \"%s\"", gb_results_col_name(i));
  if (!e) e = gb_buf_printf(&copy, "INSERT INTO gb_rows_v5 (%s) SELECT %s FROM gb_rows", cols.data, cols.data);
  const char *const then[] = {"DROP TABLE gb_rows", "ALTER TABLE gb_rows_v5 RENAME TO gb_rows",
                              "CREATE INDEX gb_rows_figure ON gb_rows (benchmark, metric, \"case\", gpu_type)",
                              "CREATE INDEX gb_rows_host_figure ON gb_rows (host, benchmark, metric, \"case\")",
                              "CREATE INDEX gb_rows_run ON gb_rows (run_id, id)"};
  if (!e) e = gb_sql_exec(s, ddl.data);
  if (!e) e = gb_sql_exec(s, copy.data);
  for (size_t i = 0; i < sizeof then / sizeof then[0] && !e; i++) e = gb_sql_exec(s, then[i]);
  gb_buf_free(&ddl);
  gb_buf_free(&cols);
  gb_buf_free(&copy);
  return e;
}

#define FILL_BATCH 4096

typedef struct fill_batch {
  int64_t id[FILL_BATCH];
  char key[FILL_BATCH][65];
  size_t n;
} fill_batch;

static gb_err fill_row(void *ctx, const gb_sql_val *val, size_t n) {
  fill_batch *b = ctx;
  if (n != 1 + GB_STORE_KEY_NCOLS || val[0].kind != GB_SQL_INT || b->n == FILL_BATCH)
    return gb_fail(GB_E_INPUT, "a row of gb_rows whose id is not a whole number: the store is damaged");
  char num[GB_STORE_KEY_NCOLS][32];
  const char *field[GB_STORE_KEY_NCOLS];
  for (size_t i = 0; i < GB_STORE_KEY_NCOLS; i++) field[i] = gb_sql_text(&val[1 + i], num[i]);
  b->id[b->n] = val[0].i;
  gb_store_rkey(field, b->key[b->n]);
  b->n++;
  return GB_OK;
}

gb_err gb_store_fill_rkey(gb_store *s) {
  gb_buf sql = {0};
  gb_err e = gb_buf_puts(&sql, "SELECT id");
  for (size_t i = 0; i < GB_STORE_KEY_NCOLS && !e; i++) e = gb_buf_printf(&sql, ", \"%s\"", gb_store_key_cols[i]);
  if (!e) e = gb_buf_printf(&sql, " FROM gb_rows WHERE id > $1 ORDER BY id LIMIT %d", FILL_BATCH);
  fill_batch *b = malloc(sizeof *b);
  if (!e && !b) e = gb_fail(GB_E_NOMEM, "out of memory");
  char after[32] = "-9223372036854775807";
  while (!e) {
    b->n = 0;
    const char *p[1] = {after};
    e = s->eng->query(s, -1, sql.data, p, 1, fill_row, b, NULL);
    for (size_t i = 0; i < b->n && !e; i++) {
      char id[32];
      snprintf(id, sizeof id, "%lld", (long long)b->id[i]);
      const char *u[2] = {b->key[i], id};
      e = s->eng->query(s, 2, "UPDATE gb_rows SET rkey = $1 WHERE id = $2", u, 2, NULL, NULL, NULL);
    }
    if (e || b->n < FILL_BATCH) break;
    snprintf(after, sizeof after, "%lld", (long long)b->id[b->n - 1]);
  }
  free(b);
  gb_buf_free(&sql);
  return e;
}
