/* gb_gputype: canonical GPU type keys. */
#include "gb_gputype.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Known parts: a substring of the driver name (upper-cased, '-' and '_'
 * read as spaces), the form factor when the name alone does not say it, and
 * the key prefix. The memory size (rounded to marketing GB) is appended.
 * Keep the more specific patterns first. */
static const struct {
  const char *pattern, *key;
} k_types[] = {
    {"GH200", "GH200"},
    {"H200 NVL", "H200-NVL"},
    {"H200", "H200-SXM"},
    {"H100 PCIE", "H100-PCIE"},
    {"H100 NVL", "H100-NVL"},
    {"H100", "H100-SXM"},
    {"H800", "H800-SXM"},
    {"A100 PCIE", "A100-PCIE"},
    {"A100", "A100-SXM"},
    {"A800", "A800-SXM"},
    /* the Grace-Blackwell superchips first: "GB200" contains "B200" */
    {"GB300", "GB300"},
    {"GB200", "GB200"},
    {"B300", "B300-SXM"},
    {"B200", "B200-SXM"},
    {"B100", "B100-SXM"},
    {"L40S", "L40S-PCIE"},
    {"L40", "L40-PCIE"},
    {"L4", "L4-PCIE"},
    {"V100", "V100-SXM2"},
    {"RTX 4090", "RTX4090-PCIE"},
};

/* Marketing size from the memory the driver reports: the smallest listed
 * size at or above it (less 1.5 GiB of reserved memory), as vendors round
 * up: H200 reports 140.4 GiB (141 GB), H100 79.6 GiB (80), L40S 45 GiB (48), GB200 185.0 GiB (186, the
 * usable size data/gpu_specs.csv keys it by). */
static unsigned marketing_gb(uint64_t bytes) {
  static const unsigned sizes[] = {8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 96, 120, 141, 144, 180, 186, 188, 192, 256, 288};
  double gib = (double)bytes / (1024.0 * 1024.0 * 1024.0);
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if ((double)sizes[i] >= gib - 1.5) return sizes[i] - gib <= 8.0 ? sizes[i] : (unsigned)(gib + 0.5);
  return (unsigned)(gib + 0.5);
}

void gb_gpu_type_from_name(const char *name, uint64_t mem_bytes, char *buf, size_t n) {
  char up[256];
  size_t j = 0;
  for (size_t i = 0; name[i] && j + 1 < sizeof up; i++) {
    char c = (char)toupper((unsigned char)name[i]);
    up[j++] = (c == '-' || c == '_') ? ' ' : c;
  }
  up[j] = '\0';
  unsigned gb = marketing_gb(mem_bytes);
  for (size_t i = 0; i < sizeof k_types / sizeof k_types[0]; i++) {
    const char *p = strstr(up, k_types[i].pattern);
    if (!p) continue;
    /* "L4" must not match "L40" */
    size_t len = strlen(k_types[i].pattern);
    if (isalnum((unsigned char)p[len])) continue;
    if (strcmp(k_types[i].key, "A100-SXM") == 0 && strstr(up, "PCIE")) continue;
    snprintf(buf, n, "%s-%uGB", k_types[i].key, gb);
    return;
  }
  /* unknown: the name without the vendor, blanks to dashes, plus memory */
  const char *s = up;
  if (strncmp(s, "NVIDIA ", 7) == 0) s += 7;
  char key[200];
  size_t k = 0;
  for (; *s && k + 1 < sizeof key; s++) {
    if (isalnum((unsigned char)*s))
      key[k++] = *s;
    else if (k && key[k - 1] != '-')
      key[k++] = '-';
  }
  while (k && key[k - 1] == '-') k--;
  key[k] = '\0';
  snprintf(buf, n, "%s-%uGB", k ? key : "GPU", gb);
}
