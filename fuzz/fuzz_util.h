/* fuzz_util: helpers shared by the libFuzzer targets. */
#ifndef GB_FUZZ_UTIL_H
#define GB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of the fuzzer's bytes (for parsers that take text). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Stops the fuzzer with a crash when a property does not hold; libFuzzer
 * keeps the input as a crash artifact. */
#define FUZZ_ASSERT(cond)                                                                        \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      __builtin_trap();                                                                          \
    }                                                                                            \
  } while (0)

#endif
