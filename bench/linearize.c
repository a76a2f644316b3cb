/* bench_linearize: the figures of Anantpur and Govindarajan's Tables 1 and 4 (CC 2014, section 6) for
 * reconv's linearize pass, on the bundled kernels and the kernel corpus.
 *
 * Table 1 kind (static): basic blocks and instructions before linearization (Bf), after it without
 * optimisation (O0, the paper's "Af") and with O1, O1+O2, O1+O2+O3 (the paper's "AfOpt" is O3), and
 * the increase O3 / Bf. Table 4 kind (dynamic): instructions issued by the IPDOM-stack model (a SIMT
 * machine with a hardware reconvergence stack, waves of the run specification's size; the paper
 * counts the GPU's executed warp instructions) for the original kernel and after O0 .. O3. Every
 * linearized kernel is checked against the thread-level interpreter (traces and memory); a row
 * that differs says so. Kernels the pass leaves as they are (already structured) are counted, not
 * listed; kernels it refuses are listed with the reason.
 *
 *   build/bench/bench_linearize [FILE...]    (from the repository root; default: examples/ and,
 *                                             with the LLVM bridge, examples/kernels and tests/corpus)
 * It prints figures and never fails on timing. */
#include "reconv/sim.h"
#include "reconv/transform.h"
#ifdef RECONV_HAVE_LLVM
#include "reconv/llvm.h"
#endif

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct figures {
  uint32_t blocks, instrs;
  uint64_t issued; /* IPDOM model: vector + scalar instructions */
  bool ok;         /* ran and equivalent */
  char why[200];
} figures;

static uint32_t count_instrs(const rc_kernel *k) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n++;
  return n;
}

static void quiet_diag(void *user, const rc_diag *d) {
  char *why = user;
  if (d->severity == RC_SEV_ERROR && !why[0]) snprintf(why, 200, "%s", d->message);
}

/* Run k on the IPDOM model; compare with the reference traces and memory when given. */
static bool run_ipdom(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, const rc_kernel *ref_k,
                      const rc_traces *ref_tr, const rc_memory *ref_mem, figures *f) {
  rc_memory mem = {0};
  rc_traces tr = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  rc_fault fault = {0};
  bool ok = rc_memory_init(ctx, &mem, s, k) == 0 && rc_ipdom_run(ctx, k, s, &mem, &tr, &st, &fault, NULL) == 0;
  if (!ok && fault.happened) snprintf(f->why, sizeof f->why, "fault: %.180s", fault.message);
  if (ok && ref_tr) {
    char why[200] = "";
    ok = rc_traces_equivalent(ref_k, ref_tr, k, &tr, why, sizeof why) && rc_memory_equal(ref_mem, &mem, why, sizeof why);
    if (!ok) snprintf(f->why, sizeof f->why, "NOT equivalent: %.170s", why);
  }
  f->issued = st.vector_instrs + st.scalar_instrs;
  rc_run_stats_free(&st);
  rc_traces_free(&tr);
  rc_memory_free(&mem);
  return ok;
}

typedef struct totals {
  uint64_t blocks[5], instrs[5], issued[5];
  uint32_t kernels, unchanged, refused, differ;
} totals;

static void bench_kernel(rc_kernel *k, const char *file, totals *t) {
  rc_ctx *ctx = k->mod->ctx;
  char label[72];
  const char *base = strrchr(file, '/');
  snprintf(label, sizeof label, "%s:%s", base ? base + 1 : file, k->name);
  const rc_instr *stuck = NULL;
  if (rc_inline_calls(k, 100000, &stuck) < 0) return;
  figures f[5];
  memset(f, 0, sizeof f);
  f[0].blocks = k->nblocks;
  f[0].instrs = count_instrs(k);
  rc_run_spec s;
  rc_run_spec_init(&s);
  bool have_spec = k->run_spec && rc_run_spec_parse_kernel(ctx, &s, k) == 0;
  /* the reference: the thread-level interpreter */
  rc_memory ref_mem = {0};
  rc_traces ref_tr = {0};
  rc_fault fault = {0};
  bool runs = have_spec && rc_memory_init(ctx, &ref_mem, &s, k) == 0 &&
              rc_interp_run(ctx, k, &s, &ref_mem, &ref_tr, NULL, &fault) == 0;
  if (runs) f[0].ok = run_ipdom(ctx, k, &s, NULL, NULL, NULL, &f[0]);
  bool changed = false, refused = false;
  char reason[200] = "";
  for (int opt = 0; opt <= 3; opt++) {
    char name[300], pipeline[40];
    snprintf(name, sizeof name, "%s.bench_lin%d", k->name, opt);
    snprintf(pipeline, sizeof pipeline, "linearize[opt=%d]", opt);
    rc_kernel *c = rc_kernel_clone(k->mod, k, name);
    rc_stats st;
    rc_stats_init(&st);
    rc_ctx q = *ctx;
    reason[0] = 0;
    q.diag = quiet_diag;
    q.diag_user = reason;
    if (!c || rc_pipeline_run(&q, c, pipeline, NULL, &st) != 0) {
      refused = true;
      rc_stats_free(&st);
      if (c) rc_module_remove_kernel(k->mod, c);
      break;
    }
    const rc_stat *regions = rc_stats_get(&st, "regions");
    changed |= regions && regions->ival > 0;
    rc_stats_free(&st);
    figures *g = &f[opt + 1];
    g->blocks = c->nblocks;
    g->instrs = count_instrs(c);
    if (runs) g->ok = run_ipdom(ctx, c, &s, k, &ref_tr, &ref_mem, g);
    rc_module_remove_kernel(k->mod, c);
  }
  t->kernels++;
  if (refused) {
    t->refused++;
    printf("%-40.40s refused: %.90s\n", label, reason);
  } else if (!changed) {
    t->unchanged++;
  } else {
    printf("%-40.40s", label);
    for (int i = 0; i < 5; i++) printf(" %4u", f[i].blocks);
    printf(" %5.2f |", f[0].blocks ? (double)f[4].blocks / f[0].blocks : 0);
    for (int i = 0; i < 5; i++) printf(" %5u", f[i].instrs);
    printf(" %5.2f |", f[0].instrs ? (double)f[4].instrs / f[0].instrs : 0);
    for (int i = 0; i < 5; i++) {
      if (runs && (i == 0 || f[i].ok)) printf(" %8llu", (unsigned long long)f[i].issued);
      else printf(" %8s", runs ? "differs" : "-");
    }
    printf("\n");
    for (int i = 1; i < 5; i++)
      if (runs && !f[i].ok) {
        t->differ++;
        printf("    O%d: %s\n", i - 1, f[i].why);
      }
    for (int i = 0; i < 5; i++) {
      t->blocks[i] += f[i].blocks;
      t->instrs[i] += f[i].instrs;
      if (runs) t->issued[i] += f[i].issued;
    }
  }
  rc_traces_free(&ref_tr);
  rc_memory_free(&ref_mem);
  rc_run_spec_free(&s);
}

static void bench_file(const char *path, totals *t) {
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  char err[200] = "";
  ctx.diag = quiet_diag;
  ctx.diag_user = err;
  rc_module *m = NULL;
  size_t n = strlen(path);
  if (n > 4 && strcmp(path + n - 4, ".rir") == 0) m = rc_parse_file(&ctx, path);
#ifdef RECONV_HAVE_LLVM
  else m = rc_llvm_import_file(&ctx, path, NULL);
#endif
  if (!m) {
    printf("%-40s cannot read: %.90s\n", path, err[0] ? err : "needs the LLVM bridge");
    return;
  }
  uint32_t nk = m->nkernels;
  rc_kernel **ks = malloc((nk ? nk : 1) * sizeof *ks);
  memcpy(ks, m->kernels, nk * sizeof *ks);
  for (uint32_t i = 0; i < nk; i++)
    if (!ks[i]->is_function) bench_kernel(ks[i], path, t);
  free(ks);
  rc_module_free(m);
}

int main(int argc, char **argv) {
  totals t;
  memset(&t, 0, sizeof t);
  printf("Table 1 kind: basic blocks and instructions, before (Bf) and after linearize[opt=N] (O0 .. O3),\n"
         "Incr = O3 / Bf. Table 4 kind: instructions issued on the IPDOM-stack model (vector + scalar),\n"
         "original and O0 .. O3 (\"differs\": not equivalent to the interpreter; \"-\": no run spec).\n\n");
  printf("%-40s %4s %4s %4s %4s %4s %5s | %5s %5s %5s %5s %5s %5s | %8s %8s %8s %8s %8s\n", "kernel", "Bf", "O0",
         "O1", "O2", "O3", "Incr", "Bf", "O0", "O1", "O2", "O3", "Incr", "Orig", "O0", "O1", "O2", "O3");
  printf("%-40s %-30s | %-35s | %s\n", "", "basic blocks", "instructions", "issued on the IPDOM stack");
  if (argc > 1) {
    for (int i = 1; i < argc; i++) bench_file(argv[i], &t);
  } else {
    static const char *const patterns[] = {"examples/*/*.rir",
#ifdef RECONV_HAVE_LLVM
                                           "examples/kernels/*.cl", "tests/corpus/*/*.cl"
#endif
    };
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
      glob_t g;
      if (glob(patterns[p], 0, NULL, &g) != 0) continue;
      for (size_t i = 0; i < g.gl_pathc; i++) bench_file(g.gl_pathv[i], &t);
      globfree(&g);
    }
  }
  printf("\n%-40s", "total (linearized kernels)");
  for (int i = 0; i < 5; i++) printf(" %4llu", (unsigned long long)t.blocks[i]);
  printf(" %5.2f |", t.blocks[0] ? (double)t.blocks[4] / t.blocks[0] : 0);
  for (int i = 0; i < 5; i++) printf(" %5llu", (unsigned long long)t.instrs[i]);
  printf(" %5.2f |", t.instrs[0] ? (double)t.instrs[4] / t.instrs[0] : 0);
  for (int i = 0; i < 5; i++) printf(" %8llu", (unsigned long long)t.issued[i]);
  printf("\n%u kernels: %u linearized, %u already structured (left as they are), %u refused; %u runs not "
         "equivalent\n",
         t.kernels, t.kernels - t.unchanged - t.refused, t.unchanged, t.refused, t.differ);
  return 0;
}
