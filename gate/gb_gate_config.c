/* gb_gate_config: reads the gate's INI file through core/gb_ini. */
#include "gb_gate_config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gb_ini.h"
#include "gb_num.h"

gb_gate_config gb_gate_config_empty(void) {
  gb_gate_config c = {.threshold_pct = NAN, .alpha = NAN, .nrules = 0, .rules = NULL};
  return c;
}

void gb_gate_config_free(gb_gate_config *cfg) {
  for (size_t i = 0; i < cfg->nrules; i++) {
    free(cfg->rules[i].benchmark);
    free(cfg->rules[i].metric);
  }
  free(cfg->rules);
  *cfg = gb_gate_config_empty();
}

typedef struct parse_state {
  const char *name;
  gb_gate_config *cfg;
  int line;          /* counted by the handler: the line of the current key */
  gb_err err;
  char msg[512];
} parse_state;

static gb_gate_rule *rule_for(parse_state *st, const char *section) {
  char bench[256], metric[256];
  const char *slash = strchr(section, '/');
  if (strncmp(section, "metric:", 7) == 0) {
    const char *m = section + 7;
    if (!*m || strlen(m) >= sizeof metric || strchr(m, '/')) return NULL;
    snprintf(bench, sizeof bench, "*");
    snprintf(metric, sizeof metric, "%s", m);
  } else if (slash) {
    size_t bl = (size_t)(slash - section);
    if (bl == 0 || bl >= sizeof bench || strchr(section, '*') || strlen(slash + 1) == 0 || strlen(slash + 1) >= sizeof metric ||
        strchr(slash + 1, '/'))
      return NULL;
    memcpy(bench, section, bl);
    bench[bl] = '\0';
    snprintf(metric, sizeof metric, "%s", slash + 1);
  } else {
    if (!*section || strlen(section) >= sizeof bench || strchr(section, '*')) return NULL;
    snprintf(bench, sizeof bench, "%s", section);
    snprintf(metric, sizeof metric, "*");
  }
  gb_gate_config *c = st->cfg;
  for (size_t i = 0; i < c->nrules; i++)
    if (strcmp(c->rules[i].benchmark, bench) == 0 && strcmp(c->rules[i].metric, metric) == 0) return &c->rules[i];
  gb_gate_rule *r = realloc(c->rules, (c->nrules + 1) * sizeof *r);
  if (!r) return NULL;
  c->rules = r;
  gb_gate_rule *nr = &r[c->nrules];
  nr->benchmark = strdup(bench);
  nr->metric = strdup(metric);
  nr->threshold_pct = NAN;
  nr->direction = 0;
  if (!nr->benchmark || !nr->metric) {
    free(nr->benchmark);
    free(nr->metric);
    return NULL;
  }
  c->nrules++;
  return nr;
}

static int fail(parse_state *st, const char *section, const char *key, const char *what, const char *value) {
  st->err = GB_E_INPUT;
  snprintf(st->msg, sizeof st->msg, "[%s] %s: %s: \"%s\"", section, key, what, value);
  return 0;
}

static int on_key(void *user, const char *section, const char *key, const char *value, long line) {
  parse_state *st = user;
  st->line = (int)line;
  double v;
  if (strcmp(section, "defaults") == 0) {
    if (strcmp(key, "threshold_pct") == 0) {
      if (!gb_parse_double(value, &v) || v < 0) return fail(st, section, key, "not a non-negative number", value);
      st->cfg->threshold_pct = v;
    } else if (strcmp(key, "alpha") == 0) {
      if (!gb_parse_double(value, &v) || !(v > 0 && v < 1))
        return fail(st, section, key, "not a number between 0 and 1", value);
      st->cfg->alpha = v;
    } else {
      return fail(st, section, key, "unknown key (known: threshold_pct, alpha)", value);
    }
    return 1;
  }
  gb_gate_rule *r = rule_for(st, section);
  if (!r)
    return fail(st, section, key,
                "bad section: use [defaults], [benchmark], [benchmark/metric] or [metric:name]", section);
  if (strcmp(key, "threshold_pct") == 0) {
    if (!gb_parse_double(value, &v) || v < 0) return fail(st, section, key, "not a non-negative number", value);
    r->threshold_pct = v;
  } else if (strcmp(key, "direction") == 0) {
    if (strcmp(value, "higher") == 0)
      r->direction = 1;
    else if (strcmp(value, "lower") == 0)
      r->direction = -1;
    else
      return fail(st, section, key, "not higher or lower", value);
  } else {
    return fail(st, section, key, "unknown key (known: threshold_pct, direction)", value);
  }
  return 1;
}

static gb_err finish(parse_state *st, int rc, gb_gate_config *cfg) {
  if (rc == 0) return GB_OK;
  gb_err e;
  if (rc == GB_INI_REPORTED)
    e = GB_E_INPUT; /* gb_ini's message, naming file:line */
  else if (rc == -1)
    e = gb_fail(GB_E_IO, "%s: cannot open the gate configuration: %s", st->name, strerror(errno));
  else if (rc == -2)
    e = gb_fail(GB_E_NOMEM, "%s: out of memory", st->name);
  else if (st->err)
    e = gb_fail(st->err, "%s:%d: %s", st->name, rc, st->msg);
  else
    e = gb_fail(GB_E_INPUT, "%s:%d: not a section header or key = value line", st->name, rc);
  gb_gate_config_free(cfg);
  return e;
}

gb_err gb_gate_config_read(const char *path, gb_gate_config *cfg) {
  *cfg = gb_gate_config_empty();
  /* fopen succeeds on a directory, whose reads then fail like an empty file */
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
    return gb_fail(GB_E_IO, "%s: not a regular file; give the gate's .ini file", path);
  parse_state st = {.name = path, .cfg = cfg};
  return finish(&st, gb_ini_parse(path, on_key, &st), cfg);
}

gb_err gb_gate_config_read_mem(const char *name, const char *text, gb_gate_config *cfg) {
  *cfg = gb_gate_config_empty();
  parse_state st = {.name = name, .cfg = cfg};
  return finish(&st, gb_ini_parse_mem(name, text, strlen(text), on_key, &st), cfg);
}

/* Rules from most to least specific: [bench/metric], [bench], [metric:name]. */
static const gb_gate_rule *find(const gb_gate_config *cfg, const char *bench, const char *metric, int which) {
  if (!cfg) return NULL;
  const char *want_b[3] = {bench, bench, "*"};
  const char *want_m[3] = {metric, "*", metric};
  for (int level = 0; level < 3; level++)
    for (size_t i = 0; i < cfg->nrules; i++) {
      const gb_gate_rule *r = &cfg->rules[i];
      if (strcmp(r->benchmark, want_b[level]) || strcmp(r->metric, want_m[level])) continue;
      if (which == 0 && !isnan(r->threshold_pct)) return r;
      if (which == 1 && r->direction != 0) return r;
    }
  return NULL;
}

double gb_gate_config_threshold(const gb_gate_config *cfg, const char *benchmark, const char *metric,
                                double fallback_pct) {
  const gb_gate_rule *r = find(cfg, benchmark, metric, 0);
  return r ? r->threshold_pct : fallback_pct;
}

int gb_gate_config_direction(const gb_gate_config *cfg, const char *benchmark, const char *metric) {
  const gb_gate_rule *r = find(cfg, benchmark, metric, 1);
  return r ? r->direction : 0;
}
