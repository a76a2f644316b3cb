/* bench_native_peers: every strategy of `reconv compare` on this machine's clock, with pocl as the
 * peer and the cost model checked against the clock (issue 27). bench/native_peers.sh runs it on the
 * bundled kernels, the corpus and a public suite; see there for what it prints.
 *
 *   bench_native_peers [--waves 8,16,32] [--scale K] [--repeat R] [--threads N] [--out DIR]
 *                      [--guess-spec] [--fit] [--vector-math] [-D NAME[=V]]... FILE|DIR...
 *
 * For each kernel with a run specification (or, with --guess-spec, a guessed one the interpreter
 * can run) and each wave size: `reconv compare --native` (rc_compare_run_opts), every row's
 * nanoseconds per work-item, the cost model's issued instructions, and whether the row was
 * equivalent to the interpreter. Then, per wave size: a table of every row's time against
 * reconverge[auto]+lower's; the geometric mean of those ratios per row, over all kernels and split by
 * "has divergent branches" / "uniform only"; the kernels where auto does worst against pocl and
 * against LLVM's structurizer; the rank correlation (Spearman) between issued and time across the
 * wave rows of each kernel and its mean; a scatter plot of issued against time (SVG, in --out);
 * on all cores (--threads), the default row and pocl; and melding on the clock (DARM's Fig. 7) on
 * the kernels of files named darm, lud or srad. With --fit, the host weights of the cost model
 * (rc_cost_weights_host) fitted to the clock per wave size; with --vector-math the wave rows'
 * transcendental math through libmvec (compare --vector-math). Rows that are not equivalent are left out of the
 * figures and counted. Timings are figures, never test verdicts. */
#include "reconv/analysis.h"
#include "reconv/compare.h"
#include "reconv/cost.h"
#include "reconv/llvm.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ROWS 32
#define MAX_WAVES 4

typedef struct kernel_result {
  char file[256], name[128];
  bool divergent, melding; /* a file of DARM's examples, Rodinia's LUD or SRAD */
  uint32_t wave;
  bool have[MAX_ROWS];     /* the row ran natively and was equivalent */
  double ns[MAX_ROWS];     /* ns per work-item */
  uint64_t issued[MAX_ROWS];
  bool wave_row[MAX_ROWS]; /* the row has issue counts (a wave row) */
  /* the issued instructions per work-item by the host's classes (NCLASS: vector, memory, barrier,
   * mask, scalar) and the lowered kernel's static costs by the GCN and the host weights */
  double per_item[MAX_ROWS][5];
  double static_gcn[MAX_ROWS], static_host[MAX_ROWS];
  double allcores_auto, allcores_pocl; /* --threads: ns per work-item */
} kernel_result;

typedef struct bench {
  uint32_t waves[MAX_WAVES], nwaves, scale, repeat, threads;
  const char *out;
  bool guess, fit, vector_math;
  const char *defines[32];
  unsigned ndefines;
  RC_VEC(kernel_result) results;
  unsigned skipped, failed_rows;
  int nrows;
  const char *row_names[MAX_ROWS];
  int auto_row, pocl_row, struct_row, meld_row, scalar_row;
} bench;

static void quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static bool has_divergent_branch(const rc_kernel *k) {
  rc_analysis a;
  if (rc_analysis_build(&a, k, rc_uniformity_target_flags(k)) != 0) return true;
  bool any = false;
  for (uint32_t b = 0; b < k->nblocks && !any; b++) any = a.unif.divergent_branch[b] != 0;
  rc_analysis_free(&a);
  return any;
}

/* A run specification for a kernel nobody wrote one for: 256 work-items in groups of 64, global
 * buffers of 16384 small random integers, local memory of 1024 of them, integers 16, floats 0.5
 * (as scripts/check-native.sh --guess-spec). */
static int guess_spec(rc_ctx *ctx, rc_run_spec *s, const rc_kernel *k) {
  rc_strbuf w;
  rc_sb_init(&w);
  rc_sb_puts(&w, "--global 256 --local 64");
  for (uint32_t p = 0; p < k->nparams; p++) {
    rc_type t = (rc_type)k->params[p]->type;
    const char *n = k->params[p]->name ? k->params[p]->name : "?";
    if (rc_type_is_ptr(t) && rc_type_addrspace(t) == 3) rc_sb_printf(&w, " --arg %s=local:i32[1024]", n);
    else if (rc_type_is_ptr(t)) rc_sb_printf(&w, " --arg %s=i32[16384]:rand(7,0,15)", n);
    else if (rc_type_is_float(t)) rc_sb_printf(&w, " --arg %s=0.5", n);
    else rc_sb_printf(&w, " --arg %s=16", n);
  }
  int rc = rc_run_spec_parse_string(ctx, s, w.data);
  rc_sb_free(&w);
  return rc;
}

static bool contains_ci(const char *s, const char *needle) {
  size_t n = strlen(needle);
  for (; *s; s++) {
    size_t i = 0;
    while (i < n && s[i] && (s[i] | 32) == (needle[i] | 32)) i++;
    if (i == n) return true;
  }
  return false;
}

static void bench_kernel(bench *b, rc_ctx *ctx, const char *path, const rc_llvm_import_opts *io, rc_kernel *k) {
  if (k->is_function || k->level != RC_LEVEL_THREAD) return;
  rc_run_spec s0;
  rc_run_spec_init(&s0);
  int rc = k->run_spec ? rc_run_spec_parse_kernel(ctx, &s0, k) : b->guess ? guess_spec(ctx, &s0, k) : -1;
  if (rc == 0) { /* the interpreter must run it */
    rc_memory mem = {0};
    rc_fault f = {0};
    rc = rc_memory_init(ctx, &mem, &s0, k) == 0 && rc_interp_run(ctx, k, &s0, &mem, NULL, NULL, &f) == 0 ? 0 : -1;
    rc_memory_free(&mem);
  }
  if (rc != 0) {
    b->skipped++;
    rc_run_spec_free(&s0);
    return;
  }
  bool divergent = has_divergent_branch(k);
  for (uint32_t wi = 0; wi < b->nwaves; wi++) {
    rc_run_spec s;
    rc_run_spec_copy(&s, &s0);
    s.wave = b->waves[wi];
    rc_compare_row *rows = rc_xcalloc((size_t)rc_compare_nstrategies, sizeof *rows);
    rc_compare_opts o = {.native = true, .scale = b->scale, .repeat = b->repeat, .threads = 1, .path = path, .import = io,
                         .vector_math = b->vector_math};
    int n = rc_compare_run_opts(ctx, k, &s, &o, rows);
    kernel_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.file, sizeof r.file, "%s", path);
    snprintf(r.name, sizeof r.name, "%s", k->name);
    r.divergent = divergent;
    r.melding = contains_ci(path, "darm") || contains_ci(path, "lud") || contains_ci(path, "srad");
    r.wave = s.wave;
    b->nrows = n < MAX_ROWS ? n : MAX_ROWS;
    for (int i = 0; i < b->nrows; i++) {
      const rc_compare_row *row = &rows[i];
      b->row_names[i] = row->st->name;
      bool measured = row->st->mode == RC_MACHINE_NATIVE_SCALAR || row->st->mode == RC_MACHINE_POCL;
      r.wave_row[i] = !measured && row->st->mode == RC_MACHINE_WAVE;
      r.issued[i] = measured ? 0 : rc_compare_issued(row);
      r.have[i] = row->native.ran && row->native.equivalent && (measured || rc_compare_row_ok(row));
      r.ns[i] = row->native.ns_per_item;
      if (r.wave_row[i] && row->ran) {
        const rc_run_stats *st = &row->res.stats;
        double items = (double)rc_run_spec_threads(&s);
        r.per_item[i][0] = (double)(st->vector_instrs - st->memory_instrs - st->barrier_instrs) / items;
        r.per_item[i][1] = (double)st->memory_instrs / items;
        r.per_item[i][2] = (double)st->barrier_instrs / items;
        r.per_item[i][3] = (double)st->mask_instrs / items;
        r.per_item[i][4] = (double)st->scalar_instrs / items;
        r.static_gcn[i] = rc_wave_static_cost_weighted(row->res.ran, &rc_cost_weights_gcn);
        r.static_host[i] = rc_wave_static_cost_weighted(row->res.ran, &rc_cost_weights_host);
      }
      if (row->native.ran && !r.have[i]) b->failed_rows++;
    }
    rc_compare_rows_free(rows, n);
    /* all cores: the default row and pocl */
    if (b->threads > 1 && s.wave == 16) {
      rc_compare_opts oc = o;
      oc.threads = b->threads;
      oc.only = RC_COMPARE_DEFAULT ",pocl";
      int m = rc_compare_run_opts(ctx, k, &s, &oc, rows);
      for (int i = 0; i < m; i++) {
        double ns = rows[i].native.ran && rows[i].native.equivalent ? rows[i].native.ns_per_item : 0;
        if (strcmp(rows[i].st->name, "pocl") == 0) r.allcores_pocl = ns;
        else r.allcores_auto = ns;
      }
      rc_compare_rows_free(rows, m);
    }
    free(rows);
    rc_vec_push(&b->results, r);
    rc_run_spec_free(&s);
  }
  rc_run_spec_free(&s0);
  fprintf(stderr, "  %s @%s\n", path, k->name);
}

static void bench_file(bench *b, const char *path) {
  size_t len = strlen(path);
  bool cl = len > 3 && strcmp(path + len - 3, ".cl") == 0, rir = len > 4 && strcmp(path + len - 4, ".rir") == 0;
  if (!cl && !rir) return;
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = quiet;
  rc_llvm_import_opts io = {0};
  io.defines = b->defines;
  io.ndefines = b->ndefines;
  rc_module *m = cl ? rc_llvm_import_file(&ctx, path, &io) : rc_parse_file(&ctx, path);
  if (!m) {
    b->skipped++;
    return;
  }
  for (uint32_t i = 0; i < m->nkernels; i++) bench_kernel(b, &ctx, path, &io, m->kernels[i]);
  rc_module_free(m);
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void bench_path(bench *b, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "bench_native_peers: no such file or directory: %s\n", path);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    bench_file(b, path);
    return;
  }
  DIR *d = opendir(path);
  if (!d) return;
  RC_VEC(char *) names = {0};
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    rc_strbuf p;
    rc_sb_init(&p);
    rc_sb_printf(&p, "%s/%s", path, e->d_name);
    rc_vec_push(&names, p.data);
  }
  closedir(d);
  qsort(names.data, names.len, sizeof *names.data, cmp_str);
  for (uint32_t i = 0; i < names.len; i++) {
    bench_path(b, names.data[i]);
    free(names.data[i]);
  }
  rc_vec_free(&names);
}

/* ---- statistics ------------------------------------------------------------------------------ */

/* the host weights' dynamic cost of row i: its issued instructions per work-item, weighted */
static double host_cost(const kernel_result *r, int i) {
  const rc_cost_weights *w = &rc_cost_weights_host;
  const double *x = r->per_item[i];
  return w->vector * x[0] + w->memory * x[1] + w->barrier * x[2] + w->mask * x[3] + w->scalar * x[4];
}


/* Spearman across the kernel's wave rows between the clock and the GCN model's issued count
 * (host = false) or the host weights' cost (host = true). */
static double kernel_spearman_by(const kernel_result *r, int nrows, bool host) {
  double x[MAX_ROWS], y[MAX_ROWS];
  int n = 0;
  for (int i = 0; i < nrows; i++)
    if (r->wave_row[i] && r->have[i]) x[n] = host ? host_cost(r, i) : (double)r->issued[i], y[n] = r->ns[i], n++;
  return rc_rank_correlation(x, y, n);
}

static double kernel_spearman(const kernel_result *r, int nrows) { return kernel_spearman_by(r, nrows, false); }

/* Least squares without negative weights, by trying every subset of the classes (there are five):
 * the weights w minimising the sum over equations of (x . w - t)^2. Returns that sum. */
static double fit_weights(const double (*x)[5], const double *t, unsigned n, double w[5]) {
  double best = INFINITY;
  for (unsigned set = 1; set < 32; set++) {
    int idx[5], m = 0;
    for (int j = 0; j < 5; j++)
      if (set >> j & 1) idx[m++] = j;
    double a[5][6] = {{0}};
    for (unsigned e = 0; e < n; e++)
      for (int p = 0; p < m; p++) {
        for (int q = 0; q < m; q++) a[p][q] += x[e][idx[p]] * x[e][idx[q]];
        a[p][m] += x[e][idx[p]] * t[e];
      }
    bool ok = true; /* Gauss-Jordan elimination with partial pivoting */
    for (int c = 0; c < m && ok; c++) {
      int piv = c;
      for (int r2 = c + 1; r2 < m; r2++)
        if (fabs(a[r2][c]) > fabs(a[piv][c])) piv = r2;
      if (fabs(a[piv][c]) < 1e-12) ok = false;
      for (int q = 0; ok && q <= m; q++) {
        double tmp = a[c][q];
        a[c][q] = a[piv][q], a[piv][q] = tmp;
      }
      for (int r2 = 0; ok && r2 < m; r2++)
        if (r2 != c) {
          double f = a[r2][c] / a[c][c];
          for (int q = c; q <= m; q++) a[r2][q] -= f * a[c][q];
        }
    }
    double cand[5] = {0};
    for (int p = 0; ok && p < m; p++) ok = (cand[idx[p]] = a[p][m] / a[p][p]) >= 0;
    if (!ok) continue;
    double err = 0;
    for (unsigned e = 0; e < n; e++) {
      double pred = 0;
      for (int j = 0; j < 5; j++) pred += cand[j] * x[e][j];
      err += (pred - t[e]) * (pred - t[e]);
    }
    if (err < best) best = err, memcpy(w, cand, sizeof cand);
  }
  return best;
}

/* --fit: the host weights that fit this machine's clock at wave size W. What the weights must get
 * right is how the rows of one kernel differ (auto chooses among them), not how kernels differ
 * (their memory traffic, their math): so each kernel's rows are taken relative to the kernel's mean
 * time and centred on their mean (a fixed effect per kernel), and the weights fit those
 * differences. The share of their variance the weights explain is printed with them. */
static void fit(const bench *b, uint32_t W) {
  unsigned n = 0;
  for (uint32_t k = 0; k < b->results.len; k++)
    for (int i = 0; i < b->nrows; i++) n += b->results.data[k].wave == W && b->results.data[k].wave_row[i] && b->results.data[k].have[i];
  double (*x)[5] = rc_xcalloc(n + 1, sizeof *x), *t = rc_xcalloc(n + 1, sizeof *t);
  unsigned e = 0, kernels = 0;
  double total = 0;
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != W) continue;
    unsigned first = e;
    double mean_t = 0, mean_x[5] = {0};
    for (int i = 0; i < b->nrows; i++)
      if (r->wave_row[i] && r->have[i] && r->ns[i] > 0) memcpy(x[e], r->per_item[i], sizeof x[e]), t[e++] = r->ns[i];
    unsigned m = e - first;
    if (m < 2) {
      e = first;
      continue;
    }
    for (unsigned q = first; q < e; q++) mean_t += t[q] / m;
    for (unsigned q = first; q < e; q++) {
      t[q] = t[q] / mean_t;
      for (int j = 0; j < 5; j++) x[q][j] /= mean_t;
    }
    double mt = 0;
    for (unsigned q = first; q < e; q++) {
      mt += t[q] / m;
      for (int j = 0; j < 5; j++) mean_x[j] += x[q][j] / m;
    }
    for (unsigned q = first; q < e; q++) {
      t[q] -= mt;
      total += t[q] * t[q];
      for (int j = 0; j < 5; j++) x[q][j] -= mean_x[j];
    }
    kernels++;
  }
  double w[5] = {0};
  double residual = fit_weights((const double (*)[5])x, t, e, w);
  printf("\n== W=%u: host weights fitted to the clock: ns per issued instruction per work-item, from how the wave "
         "rows of each kernel differ (%u rows of %u kernels; the weights explain %.1f%% of those differences)\n",
         W, e, kernels, total > 0 ? 100.0 * (1 - residual / total) : 0.0);
  printf("  vector %.4f, memory %.4f, barrier %.4f, mask %.4f, scalar %.4f\n", w[0], w[1], w[2], w[3], w[4]);
  free(x);
  free(t);
}

/* ---- output ----------------------------------------------------------------------------------- */

static void short_name(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s", name);
  char *plus = strstr(buf, "+lower");
  if (plus && strcmp(name, RC_COMPARE_DEFAULT) != 0) *plus = 0; /* reconverge[dfpd]+lower -> reconverge[dfpd] */
  if (strncmp(buf, "reconverge", 10) == 0 && buf[10] == '[') memmove(buf, buf + 10, strlen(buf + 10) + 1);
}

static void table(const bench *b, uint32_t W) {
  printf("\n== W=%u: ns per work-item of reconverge[auto]+lower, and every row's time relative to it\n", W);
  printf("%-28s %-20s %4s %9s", "file", "kernel", "div", "auto ns");
  for (int i = 0; i < b->nrows; i++) {
    if (i == b->auto_row || !strcmp(b->row_names[i], "ipdom") || strstr(b->row_names[i], "+ipdom")) continue;
    char s[40];
    short_name(s, sizeof s, b->row_names[i]);
    printf(" %8.8s", s);
  }
  printf(" %8s\n", "spearman");
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != W) continue;
    const char *file = strrchr(r->file, '/') ? strrchr(r->file, '/') + 1 : r->file;
    printf("%-28.28s %-20.20s %4s", file, r->name, r->divergent ? "yes" : "no");
    if (r->have[b->auto_row]) printf(" %9.2f", r->ns[b->auto_row]);
    else printf(" %9s", "-");
    for (int i = 0; i < b->nrows; i++) {
      if (i == b->auto_row || !strcmp(b->row_names[i], "ipdom") || strstr(b->row_names[i], "+ipdom")) continue;
      if (r->have[i] && r->have[b->auto_row]) printf(" %8.2f", r->ns[i] / r->ns[b->auto_row]);
      else printf(" %8s", "-");
    }
    double rho = kernel_spearman(r, b->nrows);
    if (isnan(rho)) printf(" %8s\n", "-");
    else printf(" %8.2f\n", rho);
  }
}

typedef struct geo {
  double log_sum;
  unsigned n;
} geo;

static void geo_add(geo *g, double ratio) {
  if (ratio > 0) g->log_sum += log(ratio), g->n++;
}

static double geo_mean(const geo *g) { return g->n ? exp(g->log_sum / g->n) : NAN; }

static void summary(const bench *b, uint32_t W) {
  printf("\n== W=%u: geometric mean of each row's time over reconverge[auto]+lower's (>1: slower than auto)\n", W);
  printf("%-32s %10s %6s %12s %6s %12s %6s %14s\n", "row", "all", "n", "divergent", "n", "uniform", "n",
         "total ns/item");
  for (int i = 0; i < b->nrows; i++) {
    if (!strcmp(b->row_names[i], "ipdom") || strstr(b->row_names[i], "+ipdom")) continue;
    geo all = {0, 0}, div = {0, 0}, uni = {0, 0};
    double total = 0;
    for (uint32_t k = 0; k < b->results.len; k++) {
      const kernel_result *r = &b->results.data[k];
      if (r->wave != W || !r->have[i]) continue;
      total += r->ns[i];
      if (!r->have[b->auto_row]) continue;
      double q = r->ns[i] / r->ns[b->auto_row];
      geo_add(&all, q);
      geo_add(r->divergent ? &div : &uni, q);
    }
    printf("%-32s %10.3f %6u %12.3f %6u %12.3f %6u %14.1f\n", b->row_names[i], geo_mean(&all), all.n, geo_mean(&div),
           div.n, geo_mean(&uni), uni.n, total);
  }
  /* the worst kernels: where auto is slowest against pocl and against the structurizer */
  const int peers[2] = {b->pocl_row, b->struct_row};
  for (int p = 0; p < 2; p++) {
    if (peers[p] < 0) continue;
    printf("worst against %s (auto's time / %s's):", b->row_names[peers[p]], b->row_names[peers[p]]);
    double worst[5] = {0};
    const kernel_result *who[5] = {0};
    for (uint32_t k = 0; k < b->results.len; k++) {
      const kernel_result *r = &b->results.data[k];
      if (r->wave != W || !r->have[peers[p]] || !r->have[b->auto_row]) continue;
      double q = r->ns[b->auto_row] / r->ns[peers[p]];
      for (int j = 0; j < 5; j++)
        if (q > worst[j]) {
          memmove(worst + j + 1, worst + j, (4 - j) * sizeof *worst);
          memmove(who + j + 1, who + j, (4 - j) * sizeof *who);
          worst[j] = q, who[j] = r;
          break;
        }
    }
    for (int j = 0; j < 5 && who[j]; j++) printf("%s %s @%s %.2f", j ? "," : "", strrchr(who[j]->file, '/') ? strrchr(who[j]->file, '/') + 1 : who[j]->file, who[j]->name, worst[j]);
    printf("\n");
  }
  double rho_sum = 0;
  unsigned rho_n = 0, above = 0;
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != W) continue;
    double rho = kernel_spearman(r, b->nrows);
    if (isnan(rho)) continue;
    rho_sum += rho, rho_n++, above += rho >= 0.8;
  }
  printf("cost model against the clock: Spearman between issued and ns per work-item across the wave rows: mean "
         "%.3f over %u kernels (%u at 0.8 or above)\n",
         rho_n ? rho_sum / rho_n : NAN, rho_n, above);
  rho_sum = 0, rho_n = 0, above = 0;
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != W) continue;
    double rho = kernel_spearman_by(r, b->nrows, true);
    if (isnan(rho)) continue;
    rho_sum += rho, rho_n++, above += rho >= 0.8;
  }
  printf("host weights against the clock (rc_cost_weights_host): Spearman mean %.3f over %u kernels (%u at 0.8 or "
         "above)\n",
         rho_n ? rho_sum / rho_n : NAN, rho_n, above);
  /* does auto pick the fastest ordering on the clock? */
  unsigned picked = 0, kernels = 0;
  double lost = 0;
  geo loss = {0, 0};
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != W || !r->have[b->auto_row]) continue;
    double best = r->ns[b->auto_row];
    for (int i = 0; i < b->nrows; i++)
      if (r->have[i] && !strncmp(b->row_names[i], "reconverge[", 11) && r->ns[i] < best) best = r->ns[i];
    kernels++;
    picked += r->ns[b->auto_row] <= best * 1.05; /* within the noise of the machine */
    lost += r->ns[b->auto_row] - best;
    geo_add(&loss, r->ns[b->auto_row] / best);
  }
  printf("reconverge[auto] against the fastest ordering on the clock: within 5%% on %u of %u kernels; geometric mean "
         "%.3f of the fastest\n",
         picked, kernels, geo_mean(&loss));
  /* what auto would pick by each weight set's static cost among its candidates (the rows
   * reconverge[dfpd|rpot|domreg|bfpd]+lower), against the fastest of those on the clock */
  static const char *const candidates[] = {"reconverge[dfpd]+lower", "reconverge[rpot]+lower",
                                           "reconverge[domreg]+lower", "reconverge[bfpd]+lower"};
  for (int host = 0; host < 2; host++) {
    unsigned within = 0, n = 0;
    geo g = {0, 0};
    for (uint32_t k = 0; k < b->results.len; k++) {
      const kernel_result *r = &b->results.data[k];
      if (r->wave != W) continue;
      int pick = -1;
      double pick_cost = INFINITY, fastest = INFINITY;
      bool all = true;
      for (int c = 0; c < 4; c++)
        for (int i = 0; i < b->nrows; i++) {
          if (strcmp(b->row_names[i], candidates[c]) != 0) continue;
          if (!r->have[i]) {
            all = false;
            continue;
          }
          double cost = host ? r->static_host[i] : r->static_gcn[i];
          if (cost < pick_cost) pick_cost = cost, pick = i;
          if (r->ns[i] < fastest) fastest = r->ns[i];
        }
      if (pick < 0 || !all) continue;
      n++;
      within += r->ns[pick] <= fastest * 1.05;
      geo_add(&g, r->ns[pick] / fastest);
    }
    printf("auto's candidates picked by the %s weights' static cost: within 5%% of the fastest on %u of %u kernels; "
           "geometric mean %.3f of the fastest\n",
           host ? "host" : "GCN", within, n, geo_mean(&g));
  }
}

static void allcores(const bench *b) {
  if (b->threads <= 1) return;
  geo sa = {0, 0}, sp = {0, 0}, vs = {0, 0};
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != 16 || !r->allcores_auto || !r->have[b->auto_row]) continue;
    geo_add(&sa, r->ns[b->auto_row] / r->allcores_auto);
    if (r->allcores_pocl && b->pocl_row >= 0 && r->have[b->pocl_row]) {
      geo_add(&sp, r->ns[b->pocl_row] / r->allcores_pocl);
      geo_add(&vs, r->allcores_pocl / r->allcores_auto);
    }
  }
  printf("\n== all %u cores, W=16: reconverge[auto]+lower %.2fx its one-thread time (%u kernels), pocl %.2fx; pocl's "
         "time over auto's on all cores: %.3f (geometric means)\n",
         b->threads, geo_mean(&sa), sa.n, geo_mean(&sp), geo_mean(&vs));
}

static void melding(const bench *b) {
  if (b->meld_row < 0) return;
  printf("\n== melding on the clock (DARM's Fig. 7): reconverge[auto]+lower's time over meld+reconverge+lower's\n");
  geo g = {0, 0};
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (!r->melding || r->wave != 16 || !r->have[b->meld_row] || !r->have[b->auto_row]) continue;
    double q = r->ns[b->auto_row] / r->ns[b->meld_row];
    geo_add(&g, q);
    printf("  %-40s @%-24s %.3f\n", r->file, r->name, q);
  }
  printf("  geometric mean %.3f over %u kernels (DARM: 1.15 on a GPU)\n", geo_mean(&g), g.n);
}

/* issued / auto's against time / auto's, every wave row of every kernel, log scales 1/4 .. 4. */
static void scatter(const bench *b, uint32_t W) {
  if (!b->out) return;
  char path[600];
  snprintf(path, sizeof path, "%s/cost_vs_clock_w%u.svg", b->out, W);
  FILE *f = fopen(path, "w");
  if (!f) return;
  const double size = 480, pad = 50;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
             "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          size + 2 * pad, size + 2 * pad);
  fprintf(f, "<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\">W=%u: issued instructions (cost model) and ns per "
             "work-item (clock), each over reconverge[auto]+lower's</text>\n", pad + size / 2, W);
  for (int t = -2; t <= 2; t++) {
    double p = pad + (t + 2) / 4.0 * size;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>", p, pad, p, pad + size);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", pad, pad + size - (p - pad), pad + size,
            pad + size - (p - pad));
    fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>", p, pad + size + 14, pow(2, t));
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", pad - 4, pad + size - (p - pad) + 4, pow(2, t));
  }
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\" stroke-dasharray=\"4\"/>\n", pad,
          pad + size, pad + size, pad);
  fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">issued / auto's</text>\n", pad + size / 2, pad + size + 32);
  fprintf(f, "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">ns / auto's</text>\n",
          pad + size / 2, pad + size / 2);
  for (uint32_t k = 0; k < b->results.len; k++) {
    const kernel_result *r = &b->results.data[k];
    if (r->wave != W || !r->have[b->auto_row] || !r->issued[b->auto_row]) continue;
    for (int i = 0; i < b->nrows; i++) {
      if (!r->wave_row[i] || !r->have[i] || i == b->auto_row || !r->issued[i]) continue;
      double x = log2((double)r->issued[i] / (double)r->issued[b->auto_row]), y = log2(r->ns[i] / r->ns[b->auto_row]);
      if (x < -2) x = -2;
      if (x > 2) x = 2;
      if (y < -2) y = -2;
      if (y > 2) y = 2;
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" fill-opacity=\"0.6\"><title>%s @%s %s</title></circle>\n",
              pad + (x + 2) / 4 * size, pad + size - (y + 2) / 4 * size, r->divergent ? "#c33" : "#36c", r->file, r->name,
              b->row_names[i]);
    }
  }
  fputs("</svg>\n", f);
  fclose(f);
  printf("scatter plot: %s (red: kernels with divergent branches)\n", path);
}

int main(int argc, char **argv) {
  bench b;
  memset(&b, 0, sizeof b);
  b.waves[0] = 8, b.waves[1] = 16, b.nwaves = 2;
  b.scale = 64, b.repeat = 5, b.threads = 1;
  b.auto_row = b.pocl_row = b.struct_row = b.meld_row = b.scalar_row = -1;
  const char *paths[256];
  int npaths = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 < argc && strcmp(a, "--waves") == 0) {
      b.nwaves = 0;
      for (char *p = argv[++i]; *p && b.nwaves < MAX_WAVES; p++) {
        b.waves[b.nwaves++] = (uint32_t)strtoul(p, &p, 10);
        if (!*p) break;
      }
    } else if (i + 1 < argc && strcmp(a, "--scale") == 0) b.scale = (uint32_t)atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(a, "--repeat") == 0) b.repeat = (uint32_t)atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(a, "--threads") == 0) b.threads = (uint32_t)atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(a, "--out") == 0) b.out = argv[++i];
    else if (strcmp(a, "--guess-spec") == 0) b.guess = true;
    else if (strcmp(a, "--fit") == 0) b.fit = true;
    else if (strcmp(a, "--vector-math") == 0) b.vector_math = true;
    else if (i + 1 < argc && strcmp(a, "-D") == 0 && b.ndefines < 32) b.defines[b.ndefines++] = argv[++i];
    else if (a[0] == '-') {
      fprintf(stderr, "usage: bench_native_peers [--waves 8,16,32] [--scale K] [--repeat R] [--threads N] [--out DIR] "
                      "[--guess-spec] [--fit] [--vector-math] [-D NAME[=V]]... FILE|DIR...\n");
      return 2;
    } else if (npaths < 256) paths[npaths++] = a;
  }
  for (int i = 0; i < npaths; i++) bench_path(&b, paths[i]);
  for (int i = 0; i < b.nrows; i++) {
    if (!strcmp(b.row_names[i], RC_COMPARE_DEFAULT)) b.auto_row = i;
    if (!strcmp(b.row_names[i], "pocl")) b.pocl_row = i;
    if (!strcmp(b.row_names[i], "llvm-structurizecfg+lower")) b.struct_row = i;
    if (!strcmp(b.row_names[i], "meld+reconverge+lower")) b.meld_row = i;
    if (!strcmp(b.row_names[i], "native-scalar")) b.scalar_row = i;
  }
  if (b.auto_row < 0) {
    fprintf(stderr, "bench_native_peers: no kernel ran\n");
    return 1;
  }
  printf("every strategy on this machine's clock: launches scaled by %u, the fastest of %u runs after a warm-up; "
         "%u kernel-widths, %u kernels skipped (no run specification, or the interpreter cannot run it), %u rows not "
         "equivalent (left out)\n",
         b.scale, b.repeat, b.results.len, b.skipped, b.failed_rows);
  for (uint32_t w = 0; w < b.nwaves; w++) {
    table(&b, b.waves[w]);
    summary(&b, b.waves[w]);
    scatter(&b, b.waves[w]);
    if (b.fit) fit(&b, b.waves[w]);
  }
  allcores(&b);
  melding(&b);
  rc_vec_free(&b.results);
  return 0;
}
