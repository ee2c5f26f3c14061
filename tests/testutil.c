/* testutil: suite runner, fixtures and temporary files for the tests. */
/* nftw and its flags are X/Open */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int gb_test_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

const char *gb_fixture(const char *name) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", GB_FIXTURES, name);
  return path;
}

/* The directories gb_test_tmpdir made, each with the process that made it: that process removes it when it
 * exits (Check runs each test in a forked child, which exits after the test), so a run leaves nothing in $TMPDIR.
 * GB_TEST_KEEP=1 keeps them for a post-mortem. */
struct made_dir {
  char *path;
  pid_t owner;
};
static struct made_dir *made;
static size_t nmade, capmade;
static pid_t registered_in;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)flag, (void)ftw;
  struct stat parent;
  char up[4200];
  snprintf(up, sizeof up, "%s/..", path);
  /* a file system a test mounted and did not unmount (it failed first): detach it, then remove its mount point */
  if (S_ISDIR(st->st_mode) && stat(up, &parent) == 0 && parent.st_dev != st->st_dev) umount2(path, MNT_DETACH);
  remove(path);
  return 0;
}

static void remove_tmpdirs(void) {
  const char *keep = getenv("GB_TEST_KEEP");
  if (keep && *keep && strcmp(keep, "0") != 0) return;
  for (size_t i = 0; i < nmade; i++)
    if (made[i].owner == getpid()) nftw(made[i].path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *gb_test_tmpdir(void) {
  static char dir[1024];
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/gbtest.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) return NULL;
  if (registered_in != getpid()) { /* a forked child inherits the parent's registration, which runs in it too */
    if (registered_in == 0) atexit(remove_tmpdirs);
    registered_in = getpid();
  }
  if (nmade == capmade) {
    size_t cap = capmade ? 2 * capmade : 64;
    struct made_dir *grown = realloc(made, cap * sizeof *made);
    if (!grown) return dir; /* left behind, not lost: the test still has its directory */
    made = grown, capmade = cap;
  }
  made[nmade].path = strdup(dir);
  made[nmade].owner = getpid();
  if (made[nmade].path) nmade++;
  return dir;
}

int gb_test_write(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, len, f);
  int rc = fclose(f);
  return (w == len && rc == 0) ? 0 : -1;
}

char *gb_test_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    if (r == 0) break;
    n += r;
  }
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

const char *gb_test_gpubench(void) {
  static char exe[4200];
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(exe, sizeof exe, "%s/../gpubench", self);
    if (access(exe, X_OK) == 0) return exe;
  }
  snprintf(exe, sizeof exe, "%s/gpubench", GB_BINARY_DIR);
  return access(exe, X_OK) == 0 ? exe : NULL;
}

int gb_test_run(char *const argv[], const char *log_path) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return -1;
  int rc = posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  if (rc == 0) rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A small XML well-formedness check: one root element, properly nested and
 * matching tags, quoted attributes, no raw '<' or stray '&' in text or
 * attribute values, only the five predefined or numeric character references,
 * nothing but blanks after the root. Enough to catch broken escaping. */
static int xml_entity_ok(const char **p) {
  const char *s = *p; /* at '&' */
  static const char *const names[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
  for (int i = 0; i < 5; i++)
    if (strncmp(s, names[i], strlen(names[i])) == 0) {
      *p += strlen(names[i]);
      return 1;
    }
  if (s[1] == '#') {
    const char *q = s + 2;
    int digits = 0;
    while (*q >= '0' && *q <= '9') q++, digits++;
    if (digits && *q == ';') {
      *p = q + 1;
      return 1;
    }
  }
  return 0;
}

static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == ':' || c == '.';
}

int gb_test_xml_well_formed(const char *s) {
  char stack[32][64];
  int depth = 0, roots = 0;
  const char *p = s;
  if (strncmp(p, "<?xml", 5) == 0) {
    p = strstr(p, "?>");
    if (!p) return 0;
    p += 2;
  }
  while (*p) {
    if (*p == '<') {
      p++;
      int closing = *p == '/';
      if (closing) p++;
      char name[64];
      int n = 0;
      while (is_name_char(*p) && n < 63) name[n++] = *p++;
      name[n] = '\0';
      if (n == 0) return 0;
      if (closing) {
        while (*p == ' ') p++;
        if (*p != '>' || depth == 0 || strcmp(stack[depth - 1], name)) return 0;
        depth--;
        p++;
        continue;
      }
      if (depth == 0 && ++roots > 1) return 0;
      for (;;) { /* attributes */
        while (*p == ' ' || *p == '\n') p++;
        if (*p == '>' || (*p == '/' && p[1] == '>')) break;
        int an = 0;
        while (is_name_char(*p)) p++, an++;
        if (!an || *p++ != '=' || *p++ != '"') return 0;
        while (*p && *p != '"') {
          if (*p == '<') return 0;
          if (*p == '&') {
            if (!xml_entity_ok(&p)) return 0;
          } else {
            p++;
          }
        }
        if (*p++ != '"') return 0;
      }
      if (*p == '/') {
        p += 2;
        continue;
      }
      p++;
      if (depth >= 32) return 0;
      snprintf(stack[depth++], sizeof stack[0], "%s", name);
    } else if (*p == '&') {
      if (depth == 0 || !xml_entity_ok(&p)) return 0;
    } else {
      if (depth == 0 && !(*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) return 0;
      if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\r' && *p != '\t') return 0;
      p++;
    }
  }
  return depth == 0 && roots == 1;
}

int gb_test_gpubench_va(const char *log_path, char **out, va_list ap) {
  const char *exe = gb_test_gpubench();
  ck_assert_msg(exe != NULL, "gpubench was not built");
  char *argv[64];
  int argc = 0;
  argv[argc++] = (char *)exe;
  for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 63;) argv[argc++] = a;
  argv[argc] = NULL;
  int rc = gb_test_run(argv, log_path);
  ck_assert_int_ge(rc, 0);
  *out = gb_test_slurp(log_path, NULL);
  ck_assert_ptr_nonnull(*out);
  return rc;
}
