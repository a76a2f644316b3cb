/* Printing a comparison (compare_report.h): the table of `reconv compare` and its JSON. */
#include "compare_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool is_measured_row(const rc_compare_row *r) {
  return r->st->mode == RC_MACHINE_NATIVE_SCALAR || r->st->mode == RC_MACHINE_POCL;
}

/* Was the comparison made on the clock too (rc_compare_opts.native)? */
static bool on_the_clock(const rc_compare_row *rows, int n) {
  for (int i = 0; i < n; i++)
    if (is_measured_row(&rows[i]) || rows[i].native.ran || rows[i].native.note[0]) return true;
  return false;
}

/* The ns/item cell: the fastest native run per work-item, or "-". */
static void time_cell(char *buf, size_t len, const rc_compare_row *r) {
  if (r->native.ran) snprintf(buf, len, "%.2f", r->native.ns_per_item);
  else snprintf(buf, len, "-");
}

void compare_report_text(FILE *f, const rc_kernel *k, const rc_run_spec *s, const rc_compare_row *rows, int n) {
  uint64_t threads = rc_run_spec_threads(s);
  bool clock = on_the_clock(rows, n);
  fprintf(f, "kernel @%s: %" PRIu64 " threads, waves of %u lanes\n", k->name, threads, s->wave);
  int w = 26; /* the name column: as wide as the longest name shown */
  for (int i = 0; i < n; i++)
    if ((int)strlen(rows[i].st->name) > w) w = (int)strlen(rows[i].st->name);
  fprintf(f, "%-*s %1s %6s %5s %9s %8s %8s %9s %9s %8s %6s%s  %s\n", w, "strategy", "", "blocks", "flow", "vector",
          "scalar", "mask", "issued", "SIMD eff", "entered", "dup", clock ? "  ns/item" : "", "verdict");
  int best = rc_compare_best(rows, n);
  uint64_t total = 0, items = 0;
  for (int i = 0; i < n; i++) {
    const rc_compare_row *r = &rows[i];
    char v[900], t[32] = "", tc[48] = "";
    if (clock) {
      time_cell(t, sizeof t, r);
      snprintf(tc, sizeof tc, " %8s", t);
      if (r->native.items) items = r->native.items;
    }
    if (!r->ran || is_measured_row(r)) {
      fprintf(f, "%-*s %1s %6s %5s %9s %8s %8s %9s %9s %8s %6s%s  %s\n", w, r->st->name, "", "-", "-", "-", "-", "-", "-",
              "-", "-", "-", tc, rc_compare_verdict(r, v, sizeof v));
      continue;
    }
    const rc_run_stats *st = &r->res.stats;
    total += rc_compare_issued(r);
    fprintf(f, "%-*s %1s %6u %5u %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %8.1f%% %8" PRIu64 " %6" PRIu64
               "%s  %s\n",
            w, r->st->name, i == best ? "*" : "", rc_count_blocks(r->res.ran, 0),
            rc_count_blocks(r->res.ran, RC_BLOCK_FLOW | RC_BLOCK_GUARD),
            st->vector_instrs, st->scalar_instrs, st->mask_instrs, rc_compare_issued(r), 100.0 * rc_simd_efficiency(st),
            st->blocks_entered, st->duplicate_blocks, tc, rc_compare_verdict(r, v, sizeof v));
  }
  if (clock)
    fprintf(f, "note: ns/item = nanoseconds per work-item of the fastest native run, on a launch of %" PRIu64
               " work-items (--scale): the wave rows on\n"
               "note: the native wave backend (W lanes in this CPU's vector registers), native-scalar one work-item at a\n"
               "note: time as LLVM -O2 compiles the kernel for this CPU, pocl the OpenCL C kernel on pocl; each checked\n"
               "note: against the interpreter's memory (native-scalar and pocl: floats may differ, fused mad, own math)\n",
            items);
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

void compare_report_json(FILE *f, const rc_kernel *k, const rc_run_spec *s, const rc_compare_row *rows, int n) {
  int best = rc_compare_best(rows, n);
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  fprintf(f, ", \"threads\": %" PRIu64 ", \"wave\": %u, \"strategies\": [", rc_run_spec_threads(s), s->wave);
  for (int i = 0; i < n; i++) {
    const rc_compare_row *r = &rows[i];
    char v[700];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    cli_json_string(f, r->st->name);
    fprintf(f, ", \"mode\": \"%s\", \"pipeline\": ", rc_machine_name(r->st->mode));
    if (r->st->pipeline) cli_json_string(f, r->st->pipeline); else fputs("null", f);
    if (on_the_clock(rows, n)) {
      if (r->native.ran)
        fprintf(f, ", \"native_ns_per_item\": %.4f, \"native_best_ns\": %" PRIu64 ", \"native_items\": %" PRIu64
                   ", \"native_equivalent\": %s, \"native_float_ulps\": %" PRIu64,
                r->native.ns_per_item, r->native.best_ns, r->native.items, r->native.equivalent ? "true" : "false",
                r->native.float_ulps);
      else
        fprintf(f, ", \"native_ns_per_item\": null, \"native_unavailable\": %s",
                r->native.unavailable ? "true" : "false");
      if (r->native.note[0]) {
        fputs(", \"native_note\": ", f);
        cli_json_string(f, r->native.note);
      }
    }
    if (r->ran && !is_measured_row(r)) {
      const rc_run_stats *st = &r->res.stats;
      fprintf(f, ", \"blocks\": %u, \"flow_blocks\": %u, \"vector_instructions\": %" PRIu64
                 ", \"scalar_instructions\": %" PRIu64 ", \"mask_instructions\": %" PRIu64
                 ", \"active_lane_instructions\": %" PRIu64 ", \"simd_efficiency\": %.6f, \"blocks_entered\": %" PRIu64
                 ", \"duplicate_blocks\": %" PRIu64 ", \"max_stack_depth\": %" PRIu64,
              rc_count_blocks(r->res.ran, 0), rc_count_blocks(r->res.ran, RC_BLOCK_FLOW | RC_BLOCK_GUARD),
              st->vector_instrs,
              st->scalar_instrs, st->mask_instrs, st->active_lane_instrs, rc_simd_efficiency(st), st->blocks_entered,
              st->duplicate_blocks, st->max_stack_depth);
      fprintf(f, ", \"issued_instructions\": %" PRIu64, rc_compare_issued(r));
    }
    fprintf(f, ", \"best\": %s, \"equivalent\": %s, \"verdict\": ", i == best ? "true" : "false",
            rc_compare_row_ok(r) ? "true" : "false");
    cli_json_string(f, rc_compare_verdict(r, v, sizeof v));
    fputc('}', f);
  }
  fputs("]}\n", f);
}


void compare_clock_words_init(compare_clock_words *c) {
  *c = (compare_clock_words){.scale = 64, .repeat = 5, .threads = 1};
}

int compare_clock_opt(const char *cmd, int argc, char **argv, int *i, compare_clock_words *c) {
  if (cli_flag(argv[*i], NULL, "--native")) {
    c->native = true;
    return 1;
  }
  if (cli_flag(argv[*i], NULL, "--vector-math")) {
    c->vector_math = c->timing_given = true;
    return 1;
  }
  static const char *const names[] = {"--scale", "--repeat", "--threads"};
  uint64_t *dst[] = {&c->scale, &c->repeat, &c->threads};
  for (int o = 0; o < 3; o++) {
    const char *v = NULL;
    int r = cli_opt(cmd, argc, argv, i, NULL, names[o], &v);
    if (r == 0) continue;
    if (r < 0 || !cli_parse_u64(cmd, names[o], v, dst[o])) return -1; /* said what is wrong */
    if (*dst[o] == 0 || *dst[o] > 100000) {
      cli_usage_error(cmd, "%s expects a number from 1 to 100000", names[o]);
      return -1;
    }
    c->timing_given = true;
    return 1;
  }
  return 0;
}

int compare_clock_check(const char *cmd, const compare_clock_words *c) {
  if (c->timing_given && !c->native)
    return cli_usage_error(cmd, "--scale, --repeat, --threads and --vector-math go with --native");
  return 0;
}
