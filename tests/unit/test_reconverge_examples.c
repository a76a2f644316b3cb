/* Every bundled example (every .rir under examples/, found by walking the directory), under every ordering,
 * with and without `force`: reconverge succeeds (the pass itself checks the result is reconverging),
 * the IR verifies, and each thread does the same as before at 1, 7, 64 and 257 threads (traces and
 * memory, DESIGN.md's trace equivalence). */
#include "test.h"

#include "reconv/sim.h"
#include "reconv/transform.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

static void find_rir(const char *dir, char ***files, unsigned *n) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      find_rir(path, files, n);
    } else {
      size_t len = strlen(path);
      if (len > 4 && strcmp(path + len - 4, ".rir") == 0) {
        *files = realloc(*files, (*n + 1) * sizeof **files);
        (*files)[(*n)++] = strdup(path);
      }
    }
  }
  closedir(d);
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

/* Run with the kernel's own run spec resized to `threads`. */
static int run(rc_ctx *ctx, const rc_kernel *k, uint32_t threads, rc_memory *mem, rc_traces *tr) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  int rc = k->run_spec ? rc_run_spec_parse_string(ctx, &s, k->run_spec) : 0;
  if (rc == 0) rc_run_spec_resize(&s, threads);
  if (rc == 0) rc = rc_memory_init(ctx, mem, &s, k);
  rc_fault fault = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  if (rc == 0) rc = rc_interp_run(ctx, k, &s, mem, tr, &st, &fault);
  if (fault.happened) fprintf(stderr, "fault: %s\n", fault.message);
  rc_run_stats_free(&st);
  rc_run_spec_free(&s);
  return rc;
}

static const char *pipelines[] = {
    "reconverge",
    "reconverge[order=dfpd,force]", "reconverge[order=df,force]", "reconverge[order=bf,force]",
    "reconverge[order=bfpd,force]", "reconverge[order=rpot,force]", "reconverge[order=domreg,force]",
    "reconverge[order=dfpd,force,cond2]", "reconverge[order=bf,force,cond2]", "reconverge[all-divergent]",
};

TEST(reconverge_every_example_every_ordering_is_trace_equivalent) {
  char **files = NULL;
  unsigned nfiles = 0;
  find_rir("examples", &files, &nfiles);
  CHECK(nfiles >= 20);
  unsigned checked = 0;
  for (unsigned f = 0; f < nfiles; f++) {
    size_t len = 0;
    char *text = read_all(files[f], &len);
    CHECK(text != NULL);
    if (!text) continue;
    for (unsigned p = 0; p < sizeof pipelines / sizeof pipelines[0]; p++) {
      test_diags d;
      test_diags_init(&d);
      rc_module *m = rc_parse_module(&d.ctx, files[f], text, len);
      CHECK(m != NULL);
      if (!m) break;
      uint32_t nk = m->nkernels;
      for (uint32_t ki = 0; ki < nk; ki++) {
        rc_kernel *k = m->kernels[ki];
        if (k->level != RC_LEVEL_THREAD) continue;
        rc_kernel *t = rc_kernel_clone(m, k, "transformed");
        if (rc_pipeline_run(&d.ctx, t, pipelines[p], NULL, NULL) != 0) {
          fprintf(stderr, "%s @%s %s: %s", files[f], k->name, pipelines[p], d.text);
          CHECK(!"reconverge failed");
          rc_module_remove_kernel(m, t);
          continue;
        }
        static const uint32_t sizes[] = {1, 7, 64, 257};
        for (unsigned si = 0; si < 4; si++) {
          rc_memory ma = {0}, mb = {0};
          rc_traces ta = {0}, tb = {0};
          char why[512] = "";
          int ra = run(&d.ctx, k, sizes[si], &ma, &ta);
          int rb = run(&d.ctx, t, sizes[si], &mb, &tb);
          bool ok = ra == 0 && rb == 0 && rc_traces_equivalent(k, &ta, t, &tb, why, sizeof why) &&
                    rc_memory_equal(&ma, &mb, why, sizeof why);
          if (!ok) {
            fprintf(stderr, "%s @%s %s at %u threads: %s %s\n", files[f], k->name, pipelines[p],
                    sizes[si], why, d.text);
            CHECK(!"not trace equivalent");
          }
          checked++;
          rc_traces_free(&ta);
          rc_traces_free(&tb);
          rc_memory_free(&ma);
          rc_memory_free(&mb);
        }
        rc_module_remove_kernel(m, t); /* its memory stays in the arena */
      }
      rc_module_free(m);
    }
    free(text);
    free(files[f]);
  }
  free(files);
  printf("%u example runs compared\n", checked);
}
