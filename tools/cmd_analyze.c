/* reconv analyze: report the CFG analyses of each kernel, for people or (--json) for scripts. */
#include "cli.h"
#include "commands.h"

#include "reconv/analysis.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv analyze [options] FILE\n\n"
    "Analyze each kernel of FILE (or --kernel NAME): the size of the CFG; whether it is reducible\n"
    "(thesis Def. 6), structured (maximal folding, thesis Defs. 7-14) and reconverging (thesis\n"
    "Def. 15: every divergent branch has two successors, one of which post-dominates it);\n"
    "Anantpur's unstructured edges (Def. 1); the cycle nesting forest; the uniformity analysis\n"
    "(divergent and uniform branches, joins of divergent branches, divergent values). Where a\n"
    "property fails, the report names the blocks or edges.\n\n"
    "options:\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  --kernel NAME       analyze only this kernel\n"
    "  --json              one JSON object per kernel, one per line\n"
    "  --all-divergent     treat every conditional branch (br, switch) as divergent\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n\n"
    "JSON fields: kernel, blocks, reachable_blocks, edges, reducible, irreducible_at, structured,\n"
    "not_structured_at, reconverging, not_reconverging_at, divergent_barriers (blocks whose barrier\n"
    "is in divergent control flow), unstructured_edges ([from, to] pairs),\n"
    "divergent_branches, uniform_branches, sync_joins (block names), cycles, irreducible_cycles\n"
    "(counts), cycle_forest (header, parent, depth, reducible, blocks, entries, exits,\n"
    "divergent_exit, assumed_divergent per cycle), divergent_values, uniform_values (value names).\n"
    "The exit code is 0 whatever the verdicts; 1 for bad input, 2 for wrong usage.\n";

/* Everything the report says about one kernel. */
typedef struct report {
  const rc_kernel *k;
  rc_analysis a;
  uint32_t reachable;
  bool reducible, structured, no_unstructured, reconverging;
  rc_u32vec irreducible_at, not_structured_at, unstructured, not_reconverging_at, divergent_barriers;
  char **value_name; /* per value id: "%x" as the printer writes it, or NULL */
} report;

/* Value names as the printer writes them: unnamed values are numbered %0, %1, ... in order of
 * definition, parameters first (src/ir/printer.c). */
static void name_values(report *r) {
  const rc_kernel *k = r->k;
  r->value_name = rc_xcalloc(k->nvalues ? k->nvalues : 1, sizeof *r->value_name);
  uint32_t next = 0;
  char buf[64];
  for (uint32_t p = 0; p < k->nparams; p++) {
    const rc_value *v = k->params[p];
    if (v->name) r->value_name[v->id] = rc_xstrdup(v->name);
    else snprintf(buf, sizeof buf, "%u", next++), r->value_name[v->id] = rc_xstrdup(buf);
  }
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.type == RC_VOID || i->v.id >= k->nvalues) continue;
      if (i->v.name) r->value_name[i->v.id] = rc_xstrdup(i->v.name);
      else snprintf(buf, sizeof buf, "%u", next++), r->value_name[i->v.id] = rc_xstrdup(buf);
    }
}

static void report_build(report *r, const rc_kernel *k, unsigned flags) {
  memset(r, 0, sizeof *r);
  r->k = k;
  rc_analysis_build(&r->a, k, flags);
  for (uint32_t b = 0; b < k->nblocks; b++) r->reachable += rc_domtree_contains(&r->a.dom, b);
  r->reducible = rc_is_reducible(&r->a.cfg, &r->irreducible_at);
  r->structured = rc_is_structured(&r->a.cfg, &r->a.dom, &r->a.pdom, &r->not_structured_at);
  r->no_unstructured =
      rc_unstructured_edges(&r->a.cfg, &r->a.dom, &r->a.pdom, &r->a.cycles, &r->unstructured);
  r->reconverging = rc_is_reconverging(k, &r->a.cfg, &r->a.pdom, &r->a.unif, &r->not_reconverging_at);
  rc_divergent_barriers(k, &r->a, &r->divergent_barriers);
  name_values(r);
}

static void report_free(report *r) {
  for (uint32_t v = 0; v < r->k->nvalues; v++) free(r->value_name[v]);
  free(r->value_name);
  rc_vec_free(&r->irreducible_at);
  rc_vec_free(&r->not_structured_at);
  rc_vec_free(&r->unstructured);
  rc_vec_free(&r->not_reconverging_at);
  rc_vec_free(&r->divergent_barriers);
  rc_analysis_free(&r->a);
}

/* Branches the report sorts into divergent and uniform: br and switch, and the wave-level scalar
 * branch brexecz (always uniform). */
static bool is_conditional(const rc_block *b) {
  const rc_instr *t = rc_block_term(b);
  return t && (t->op == RC_OP_BR || t->op == RC_OP_SWITCH || t->op == RC_OP_BREXECZ) &&
         t->ntargets >= 2;
}

/* ---- text ------------------------------------------------------------------------------------ */

static void text_blocks(FILE *f, const rc_kernel *k, const uint32_t *ids, uint32_t n) {
  if (!n) fputs("(none)", f);
  for (uint32_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? ", " : "", k->blocks[ids[i]]->name);
}

/* "  NAME yes" or "  NAME no (WHY: blocks)" */
static void text_verdict(FILE *f, const rc_kernel *k, const char *name, bool ok, const char *why,
                         const rc_u32vec *where) {
  fprintf(f, "  %s %s", name, ok ? "yes" : "no (");
  if (!ok) {
    fprintf(f, "%s: ", why);
    text_blocks(f, k, where->data, where->len);
    fputc(')', f);
  }
  fputc('\n', f);
}

/* blocks b (of the kernel) with sel(b) */
static void text_block_set(FILE *f, const report *r, const uint8_t *sel, bool want, bool cond_only) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < r->k->nblocks; b++) {
    if (cond_only && !is_conditional(r->k->blocks[b])) continue;
    if (!!sel[b] != want) continue;
    fprintf(f, "%s%s", n++ ? ", " : "", r->k->blocks[b]->name);
  }
  if (!n) fputs("(none)", f);
}

static void text_values(FILE *f, const report *r, bool divergent) {
  uint32_t n = 0;
  for (uint32_t v = 0; v < r->k->nvalues; v++) {
    if (!r->value_name[v] || r->a.unif.divergent_value[v] != divergent) continue;
    fprintf(f, "%s%%%s", n++ ? ", " : "", r->value_name[v]);
  }
  if (!n) fputs("(none)", f);
}

static void text_report(FILE *f, const report *r) {
  const rc_kernel *k = r->k;
  const rc_analysis *a = &r->a;
  fprintf(f, "kernel @%s: %u blocks (%u reachable), %u edges\n", k->name, k->nblocks, r->reachable,
          a->cfg.succ_start[a->cfg.nblocks]);
  text_verdict(f, k, "reducible:         ", r->reducible, "entries of irreducible cycles", &r->irreducible_at);
  text_verdict(f, k, "structured:        ", r->structured, "condition nodes left after folding",
               &r->not_structured_at);
  text_verdict(f, k, "reconverging:      ", r->reconverging,
               "divergent branches without a post-dominating successor", &r->not_reconverging_at);
  text_verdict(f, k, "barriers uniform:  ", r->divergent_barriers.len == 0,
               "barriers in divergent control flow", &r->divergent_barriers);
  fputs("  unstructured edges: ", f);
  if (!r->unstructured.len) fputs("(none)", f);
  for (uint32_t i = 0; i + 1 < r->unstructured.len; i += 2)
    fprintf(f, "%s%s -> %s", i ? ", " : "", k->blocks[r->unstructured.data[i]]->name,
            k->blocks[r->unstructured.data[i + 1]]->name);
  fputs("\n  divergent branches: ", f);
  text_block_set(f, r, a->unif.divergent_branch, true, true);
  fputs("\n  uniform branches:   ", f);
  text_block_set(f, r, a->unif.divergent_branch, false, true);
  fputs("\n  sync joins:         ", f);
  text_block_set(f, r, a->unif.sync_join, true, false);
  uint32_t nirr = 0;
  for (uint32_t c = 0; c < a->cycles.ncycles; c++) nirr += !a->cycles.cycles[c].reducible;
  fprintf(f, "\n  cycles:             %u (%u irreducible)\n", a->cycles.ncycles, nirr);
  for (uint32_t c = 0; c < a->cycles.ncycles; c++) {
    const rc_cycle *cy = &a->cycles.cycles[c];
    fprintf(f, "    %*scycle %s: depth %u, %s", 2 * (cy->depth - 1), "", k->blocks[cy->header]->name,
            cy->depth, cy->reducible ? "reducible" : "irreducible");
    if (a->unif.temporal_cycle[c]) fputs(", divergent exit", f);
    if (a->unif.assumed_divergent[c]) fputs(", assumed divergent", f);
    fputs("; blocks ", f);
    text_blocks(f, k, cy->blocks, cy->nblocks);
    fputs("; entries ", f);
    text_blocks(f, k, cy->entries, cy->nentries);
    fputs("; exits ", f);
    text_blocks(f, k, cy->exits, cy->nexits);
    fputc('\n', f);
  }
  fputs("  divergent values:   ", f);
  text_values(f, r, true);
  fputs("\n  uniform values:     ", f);
  text_values(f, r, false);
  fputc('\n', f);
}

/* ---- JSON -------------------------------------------------------------------------------------- */

static void json_blocks(FILE *f, const rc_kernel *k, const uint32_t *ids, uint32_t n) {
  fputc('[', f);
  for (uint32_t i = 0; i < n; i++) {
    if (i) fputs(", ", f);
    cli_json_string(f, k->blocks[ids[i]]->name);
  }
  fputc(']', f);
}

static void json_block_set(FILE *f, const report *r, const uint8_t *sel, bool want, bool cond_only) {
  fputc('[', f);
  uint32_t n = 0;
  for (uint32_t b = 0; b < r->k->nblocks; b++) {
    if ((cond_only && !is_conditional(r->k->blocks[b])) || !!sel[b] != want) continue;
    if (n++) fputs(", ", f);
    cli_json_string(f, r->k->blocks[b]->name);
  }
  fputc(']', f);
}

static void json_values(FILE *f, const report *r, bool divergent) {
  fputc('[', f);
  uint32_t n = 0;
  for (uint32_t v = 0; v < r->k->nvalues; v++) {
    if (!r->value_name[v] || r->a.unif.divergent_value[v] != divergent) continue;
    if (n++) fputs(", ", f);
    cli_json_string(f, r->value_name[v]);
  }
  fputc(']', f);
}

static void json_report(FILE *f, const report *r) {
  const rc_kernel *k = r->k;
  const rc_analysis *a = &r->a;
  uint32_t nirr = 0;
  for (uint32_t c = 0; c < a->cycles.ncycles; c++) nirr += !a->cycles.cycles[c].reducible;
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  fprintf(f, ", \"blocks\": %u, \"reachable_blocks\": %u, \"edges\": %u", k->nblocks, r->reachable,
          a->cfg.succ_start[a->cfg.nblocks]);
  fprintf(f, ", \"reducible\": %s, \"irreducible_at\": ", r->reducible ? "true" : "false");
  json_blocks(f, k, r->irreducible_at.data, r->irreducible_at.len);
  fprintf(f, ", \"structured\": %s, \"not_structured_at\": ", r->structured ? "true" : "false");
  json_blocks(f, k, r->not_structured_at.data, r->not_structured_at.len);
  fprintf(f, ", \"reconverging\": %s, \"not_reconverging_at\": ", r->reconverging ? "true" : "false");
  json_blocks(f, k, r->not_reconverging_at.data, r->not_reconverging_at.len);
  fputs(", \"divergent_barriers\": ", f);
  json_blocks(f, k, r->divergent_barriers.data, r->divergent_barriers.len);
  fputs(", \"unstructured_edges\": [", f);
  for (uint32_t i = 0; i + 1 < r->unstructured.len; i += 2) {
    fputs(i ? ", [" : "[", f);
    cli_json_string(f, k->blocks[r->unstructured.data[i]]->name);
    fputs(", ", f);
    cli_json_string(f, k->blocks[r->unstructured.data[i + 1]]->name);
    fputc(']', f);
  }
  fputs("], \"divergent_branches\": ", f);
  json_block_set(f, r, a->unif.divergent_branch, true, true);
  fputs(", \"uniform_branches\": ", f);
  json_block_set(f, r, a->unif.divergent_branch, false, true);
  fputs(", \"sync_joins\": ", f);
  json_block_set(f, r, a->unif.sync_join, true, false);
  fprintf(f, ", \"cycles\": %u, \"irreducible_cycles\": %u, \"cycle_forest\": [", a->cycles.ncycles, nirr);
  for (uint32_t c = 0; c < a->cycles.ncycles; c++) {
    const rc_cycle *cy = &a->cycles.cycles[c];
    fputs(c ? ", {\"header\": " : "{\"header\": ", f);
    cli_json_string(f, k->blocks[cy->header]->name);
    fputs(", \"parent\": ", f);
    if (cy->parent == RC_NONE) fputs("null", f);
    else cli_json_string(f, k->blocks[a->cycles.cycles[cy->parent].header]->name);
    fprintf(f, ", \"depth\": %u, \"reducible\": %s, \"blocks\": ", cy->depth, cy->reducible ? "true" : "false");
    json_blocks(f, k, cy->blocks, cy->nblocks);
    fputs(", \"entries\": ", f);
    json_blocks(f, k, cy->entries, cy->nentries);
    fputs(", \"exits\": ", f);
    json_blocks(f, k, cy->exits, cy->nexits);
    fprintf(f, ", \"divergent_exit\": %s, \"assumed_divergent\": %s}",
            a->unif.temporal_cycle[c] ? "true" : "false", a->unif.assumed_divergent[c] ? "true" : "false");
  }
  fputs("], \"divergent_values\": ", f);
  json_values(f, r, true);
  fputs(", \"uniform_values\": ", f);
  json_values(f, r, false);
  fputs("}\n", f);
}

int cmd_analyze(int argc, char **argv) {
  const char *out = NULL, *kname = NULL, *file = NULL;
  bool json = false;
  unsigned flags = 0;
  cli_input_opts in = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--json")) {
      json = true;
    } else if (cli_flag(a, NULL, "--all-divergent")) {
      flags |= RC_UNIF_ALL_DIVERGENT;
    } else if ((r = cli_opt("analyze", argc, argv, &i, "-o", "--output", &out)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("analyze", argc, argv, &i, NULL, "--kernel", &kname)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_input_opt("analyze", argc, argv, &i, &in)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("analyze", "unknown option '%s'", a);
    } else if (file) {
      return cli_usage_error("analyze", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("analyze", "no input file");
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in);
  if (!m) return EXIT_BAD_INPUT;
  rc_kernel *only = NULL;
  if (kname && !(only = cli_pick_kernel(&ctx, m, kname))) {
    rc_module_free(m);
    return EXIT_BAD_INPUT;
  }
  const char *inputs[] = {file};
  cli_out o;
  int rc = cli_out_open(&o, out, inputs, 1);
  if (rc) {
    rc_module_free(m);
    return rc;
  }
  for (uint32_t i = 0; i < m->nkernels; i++) {
    if (only && m->kernels[i] != only) continue;
    report r;
    report_build(&r, m->kernels[i], flags | rc_uniformity_target_flags(m->kernels[i]));
    if (json) {
      json_report(o.f, &r);
    } else {
      if (i > 0 && !only) fputc('\n', o.f); /* a blank line between kernels */
      text_report(o.f, &r);
    }
    report_free(&r);
  }
  if (ferror(o.f)) {
    cli_out_abort(&o);
    fprintf(stderr, "reconv: error: write error on '%s'\n", out ? out : "-");
    rc = EXIT_BAD_INPUT;
  } else {
    rc = cli_out_commit(&o);
  }
  rc_module_free(m);
  return rc;
}
