/* Running the strategies of `reconv compare` (compare_run.h): each row checked against the
 * thread-level interpreter (traces and memory); the table and its JSON. */
#include "compare_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const strategy compare_strategies[] = {
    {"ipdom", SIM_MODE_IPDOM, NULL, NULL, NULL, NULL},
    {"reconverge[auto]+lower", SIM_MODE_WAVE, "reconverge[order=auto],lower", "reconverge[order=auto]", NULL, NULL},
    {"reconverge[dfpd]+lower", SIM_MODE_WAVE, "reconverge[order=dfpd],lower", "reconverge[order=dfpd]", NULL, NULL},
    {"reconverge[df]+lower", SIM_MODE_WAVE, "reconverge[order=df],lower", "reconverge[order=df]", NULL, NULL},
    {"reconverge[bf]+lower", SIM_MODE_WAVE, "reconverge[order=bf],lower", "reconverge[order=bf]", NULL, NULL},
    {"reconverge[bfpd]+lower", SIM_MODE_WAVE, "reconverge[order=bfpd],lower", "reconverge[order=bfpd]", NULL, NULL},
    {"reconverge[rpot]+lower", SIM_MODE_WAVE, "reconverge[order=rpot],lower", "reconverge[order=rpot]", NULL, NULL},
    {"reconverge[domreg]+lower", SIM_MODE_WAVE, "reconverge[order=domreg],lower", "reconverge[order=domreg]", NULL, NULL},
    /* Anantpur and Govindarajan 2014: the linearized kernel on the IPDOM stack, and lowered */
    {"linearize[opt=0]+ipdom", SIM_MODE_IPDOM, "linearize[opt=0]", NULL, NULL, NULL},
    {"linearize[opt=3]+ipdom", SIM_MODE_IPDOM, "linearize[opt=3]", NULL, NULL, NULL},
    {"linearize[opt=3]+lower", SIM_MODE_WAVE, "linearize[opt=3],reconverge,lower", "linearize[opt=3]", NULL, NULL},
    {"blockip", SIM_MODE_WAVE, "blockip", NULL, NULL, NULL},
    {"full-linearize", SIM_MODE_WAVE, "full-linearize", NULL, NULL, NULL},
    /* DARM's melding first (docs/meld.md); checked by effect traces, since melding changes which
     * blocks a thread runs (sim_pipeline_needs_effects) */
    {"meld+reconverge+lower", SIM_MODE_WAVE, "meld,reconverge,lower", "meld,reconverge", NULL, NULL},
#ifdef RECONV_HAVE_LLVM
    {"llvm-structurizecfg+lower", SIM_MODE_WAVE, "lower[norepair]", NULL, LLVM_STRUCTURIZER, NULL},
    /* melding helps every scheme: meld, then LLVM's structurizer pipeline (exported to LLVM after
     * meld), then lower; checked by effect traces as the meld row */
    {"meld+llvm-structurizecfg+lower", SIM_MODE_WAVE, "lower[norepair]", NULL, LLVM_STRUCTURIZER, "meld"},
#endif
};
const int compare_nstrategies = sizeof compare_strategies / sizeof compare_strategies[0];

/* The first error of a strategy goes into its row instead of standard error. */
static void keep_first_error(void *user, const rc_diag *d) {
  compare_row *r = user;
  if (d->severity != RC_SEV_ERROR || r->error[0]) return;
  if (d->file) snprintf(r->error, sizeof r->error, "%s: %s", d->file, d->message);
  else snprintf(r->error, sizeof r->error, "%s", d->message);
}

const char *compare_verdict(const compare_row *r, char *buf, size_t len) {
  if (!r->ran) snprintf(buf, len, "error: %s", r->error);
  else if (r->res.fault.happened) snprintf(buf, len, "fault: %s", r->res.fault.message);
  else if (!r->res.equivalent) snprintf(buf, len, "NOT equivalent: %s", r->res.why);
  else snprintf(buf, len, "equivalent");
  return buf;
}

bool compare_selected(const char *only, const char *name) {
  if (!only) return true;
  size_t n = strlen(name);
  for (const char *p = only; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return true;
    if (!e) break;
    p = e + 1;
  }
  return false;
}

bool compare_row_ok(const compare_row *r) { return r->ran && !r->res.fault.happened && r->res.equivalent; }

uint64_t compare_issued(const compare_row *r) {
  const rc_run_stats *st = &r->res.stats;
  return st->vector_instrs + st->scalar_instrs + st->mask_instrs;
}

int compare_best(const compare_row *rows, int n) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (compare_row_ok(&rows[i]) && (best < 0 || compare_issued(&rows[i]) < compare_issued(&rows[best]))) best = i;
  return best;
}

void compare_report_text(FILE *f, const rc_kernel *k, const rc_run_spec *s, const compare_row *rows, int n) {
  uint64_t threads = rc_run_spec_threads(s);
  fprintf(f, "kernel @%s: %" PRIu64 " threads, waves of %u lanes\n", k->name, threads, s->wave);
  int w = 26; /* the name column: as wide as the longest name shown */
  for (int i = 0; i < n; i++)
    if ((int)strlen(rows[i].st->name) > w) w = (int)strlen(rows[i].st->name);
  fprintf(f, "%-*s %1s %6s %5s %9s %8s %8s %9s %9s %8s %6s  %s\n", w, "strategy", "", "blocks", "flow", "vector",
          "scalar", "mask", "issued", "SIMD eff", "entered", "dup", "verdict");
  int best = compare_best(rows, n);
  uint64_t total = 0;
  for (int i = 0; i < n; i++) {
    const compare_row *r = &rows[i];
    char v[700];
    if (!r->ran) {
      fprintf(f, "%-*s %1s %6s %5s %9s %8s %8s %9s %9s %8s %6s  %s\n", w, r->st->name, "", "-", "-", "-", "-", "-", "-",
              "-", "-", "-", compare_verdict(r, v, sizeof v));
      continue;
    }
    const rc_run_stats *st = &r->res.stats;
    total += compare_issued(r);
    fprintf(f, "%-*s %1s %6u %5u %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8.1f%% %8" PRIu64 " %6" PRIu64
               "  %s\n",
            w, r->st->name, i == best ? "*" : "", sim_count_blocks(r->res.ran, 0),
            sim_count_blocks(r->res.ran, RC_BLOCK_FLOW | RC_BLOCK_GUARD),
            st->vector_instrs, st->scalar_instrs, st->mask_instrs, compare_issued(r), 100.0 * rc_simd_efficiency(st),
            st->blocks_entered, st->duplicate_blocks, compare_verdict(r, v, sizeof v));
  }
  /* what the numbers mean, so that the table reads without the manual; "note:" lines, which
   * scripts reading the rows can skip */
  fprintf(f, "note: issued = vector + scalar + mask instructions the waves issue, one slot each: the cost; "
             "total of the rows %" PRIu64 "\n"
             "note: counted as an AMD GCN-like machine issues them (docs/cost.md): reading a register or exec,\n"
             "note: a ballot and a copy that register coalescing removes cost nothing\n", total);
  if (best >= 0) fprintf(f, "note: * = the cheapest strategy equivalent to the thread-level interpreter (%s)\n", rows[best].st->name);
  fputs("note: SIMD eff = active lanes per vector instruction / wave size", f);
  if (threads < s->wave)
    fprintf(f, "; %" PRIu64 " threads fill at most %.1f%% of a %u-lane wave", threads, 100.0 * (double)threads / s->wave,
            s->wave);
  int neffects = 0;
  for (int i = 0; i < n; i++)
    if (rows[i].res.effects) fprintf(f, "%s%s", neffects++ ? " and " : "\nnote: ", rows[i].st->name);
  if (neffects == 1)
    fputs(" changes which blocks a thread runs: checked by effect traces (stores, atomics,\n"
          "note: barriers per thread, docs/meld.md) and memory", f);
  else if (neffects > 1)
    fputs("\nnote: change which blocks a thread runs: checked by effect traces (stores, atomics, barriers\n"
          "note: per thread, docs/meld.md) and memory", f);
  fputs("\nnote: dup = blocks a wave enters again while lanes that ran them wait (the IPDOM stack re-runs a\n"
        "note: block per path into it; reconverge's flow blocks can take a wave around a loop twice, thesis\n"
        "note: 4.3.1, while each lane runs each block once)\n"
        "note: reconverge[auto] is the default: of dfpd, rpot, domreg and, up to 200 blocks, bfpd (orderings\n"
        "note: that respect post-dominance, thesis 4.3.1) it keeps the one whose lowered kernel has the lowest\n"
        "note: static cost\n"
        "note: blockip and full-linearize keep the CFG and sweep its blocks in one layout: blockip skips the\n"
        "note: blocks no lane wants (per-lane block labels, the Beignet note), full-linearize runs them all\n",
        f);
}

void compare_report_json(FILE *f, const rc_kernel *k, const rc_run_spec *s, const compare_row *rows, int n) {
  int best = compare_best(rows, n);
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  fprintf(f, ", \"threads\": %" PRIu64 ", \"wave\": %u, \"strategies\": [", rc_run_spec_threads(s), s->wave);
  for (int i = 0; i < n; i++) {
    const compare_row *r = &rows[i];
    char v[700];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    cli_json_string(f, r->st->name);
    fprintf(f, ", \"mode\": \"%s\", \"pipeline\": ", sim_mode_name(r->st->mode));
    if (r->st->pipeline) cli_json_string(f, r->st->pipeline); else fputs("null", f);
    if (r->ran) {
      const rc_run_stats *st = &r->res.stats;
      fprintf(f, ", \"blocks\": %u, \"flow_blocks\": %u, \"vector_instructions\": %" PRIu64
                 ", \"scalar_instructions\": %" PRIu64 ", \"mask_instructions\": %" PRIu64
                 ", \"active_lane_instructions\": %" PRIu64 ", \"simd_efficiency\": %.6f, \"blocks_entered\": %" PRIu64
                 ", \"duplicate_blocks\": %" PRIu64 ", \"max_stack_depth\": %" PRIu64,
              sim_count_blocks(r->res.ran, 0), sim_count_blocks(r->res.ran, RC_BLOCK_FLOW | RC_BLOCK_GUARD),
              st->vector_instrs,
              st->scalar_instrs, st->mask_instrs, st->active_lane_instrs, rc_simd_efficiency(st), st->blocks_entered,
              st->duplicate_blocks, st->max_stack_depth);
      fprintf(f, ", \"issued_instructions\": %" PRIu64, compare_issued(r));
    }
    fprintf(f, ", \"best\": %s, \"equivalent\": %s, \"verdict\": ", i == best ? "true" : "false",
            compare_row_ok(r) ? "true" : "false");
    cli_json_string(f, compare_verdict(r, v, sizeof v));
    fputc('}', f);
  }
  fputs("]}\n", f);
}

int compare_run(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const char *only, bool timeline,
                compare_row *rows) {
  int n = 0;
  for (int i = 0; i < compare_nstrategies; i++) {
    if (!compare_selected(only, compare_strategies[i].name)) continue;
    compare_row *r = &rows[n++];
    memset(r, 0, sizeof *r);
    r->st = &compare_strategies[i];
    r->ctx = *ctx;
    r->ctx.diag = keep_first_error;
    r->ctx.diag_user = r;
    sim_request req = {0};
    req.mode = r->st->mode;
    req.pipeline = r->st->pipeline;
    req.llvm_passes = r->st->llvm_passes;
    req.before_llvm = r->st->before_llvm;
    req.check = true;
    req.timeline = timeline && strcmp(r->st->name, COMPARE_DEFAULT) == 0;
    r->ran = sim_execute(&r->ctx, k, s, &req, &r->res) == 0;
    if (!r->ran && !r->error[0]) snprintf(r->error, sizeof r->error, "failed");
  }
  return n;
}

void compare_rows_free(compare_row *rows, int n) {
  for (int i = 0; i < n; i++) sim_result_free(&rows[i].res);
}
