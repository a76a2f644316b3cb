/* reconv orderings: the thesis's comparison of block orderings (Figures 4.13-4.15) as a table. */
#include "cli.h"
#include "commands.h"

#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv orderings [options] FILE\n\n"
    "Reconverge each kernel of FILE once per block ordering and compare the results, as the\n"
    "thesis does in Figures 4.13-4.15: flow blocks and virtual nodes inserted, blocks after,\n"
    "uniform branches kept (still two-way branches, or folded into a flow block's condition),\n"
    "loops kept intact (cycles of the input that the output still has with no block added inside)\n"
    "and new cycles (cycles of the output, nested ones too, whose original blocks no cycle of the\n"
    "input holds together). The algorithm runs even when the kernel is already reconverging\n"
    "(reconverge[force]), so that orderings can be compared on such kernels too.\n\n"
    "options:\n"
    "  --orders LIST      comma-separated orderings (default df,dfpd,bf,bfpd,rpot,domreg,auto;\n"
    "                     auto shows the ordering it chose, e.g. auto=rpot)\n"
    "  --cond2            also apply the thesis's Condition 2\n"
    "  --show-order       print the block ordering of each row\n"
    "  --json             one JSON object per kernel and ordering, one per line\n"
    "  -o, --output FILE  write to FILE instead of standard output\n"
    "  --kernel NAME      compare only this kernel\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help         show this help\n";

typedef struct row {
  char order[16];
  uint32_t flow, virt, blocks_after, uniform_kept, uniform_folded, uniform_total, loops_kept, loops_total, new_cycles;
  bool failed;
  char sequence[512];
} row;

/* The uniform two-way branches of `in` not made divergent in `out` (by block name): still two-way
 * branches, or folded into a flow block's condition (then no lane diverges on them either). */
static void count_uniform(const rc_kernel *in, const rc_analysis *a, const rc_kernel *out, row *r) {
  for (uint32_t b = 0; b < in->nblocks; b++) {
    rc_instr *t = rc_block_term(in->blocks[b]);
    if (!t || t->op != RC_OP_BR || t->targets[0] == t->targets[1] || a->unif.divergent_branch[b]) continue;
    r->uniform_total++;
    rc_block *ob = rc_kernel_find_block(out, in->blocks[b]->name);
    rc_instr *ot = ob ? rc_block_term(ob) : NULL;
    if (ot && ot->op == RC_OP_BR && ot->targets[0] != ot->targets[1]) r->uniform_kept++;
    else if (ob && rc_branch_folded_into_flow(ob)) {
      r->uniform_kept++;
      r->uniform_folded++;
    }
  }
}

/* Does the output have a cycle made of exactly the blocks of input cycle `ic` (no flow block added
 * inside it)? */
static bool cycle_intact(const rc_kernel *in, const rc_cycle *ic, const rc_kernel *out,
                         const rc_cycle_info *oci) {
  for (uint32_t c = 0; c < oci->ncycles; c++) {
    const rc_cycle *oc = &oci->cycles[c];
    if (oc->nblocks != ic->nblocks) continue;
    bool same = true;
    for (uint32_t i = 0; i < ic->nblocks && same; i++) {
      rc_block *ob = rc_kernel_find_block(out, in->blocks[ic->blocks[i]]->name);
      same = ob && rc_cycle_contains(oci, c, ob->id);
    }
    if (same) return true;
  }
  return false;
}

/* Is output cycle `oc` a cycle the input had: do its original blocks all lie inside one cycle of
 * the input? A cycle of flow blocks only is new (the input had no such cycle), and so is every
 * cycle of an acyclic input. */
static bool cycle_is_old(const rc_kernel *in, const rc_cycle_info *ici, const rc_kernel *out,
                         const rc_cycle *oc) {
  bool has_original = false;
  for (uint32_t i = 0; i < oc->nblocks; i++) has_original |= !(out->blocks[oc->blocks[i]]->bflags & RC_BLOCK_SYNTHETIC);
  if (!has_original) return false;
  for (uint32_t c = 0; c < ici->ncycles; c++) {
    bool all = true;
    for (uint32_t i = 0; i < oc->nblocks && all; i++) {
      const rc_block *ob = out->blocks[oc->blocks[i]];
      if (ob->bflags & RC_BLOCK_SYNTHETIC) continue;
      rc_block *ib = rc_kernel_find_block(in, ob->name);
      all = ib && rc_cycle_contains(ici, c, ib->id);
    }
    if (all) return true;
  }
  return false;
}

static void measure(rc_ctx *ctx, rc_kernel *in, const char *order, bool cond2, row *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->order, sizeof r->order, "%s", order);
  rc_kernel *out = rc_kernel_clone(in->mod, in, "orderings.out");
  char pipeline[96];
  snprintf(pipeline, sizeof pipeline, "reconverge[order=%s,force%s]", order, cond2 ? ",cond2" : "");
  rc_stats st;
  rc_stats_init(&st);
  if (rc_pipeline_run(ctx, out, pipeline, NULL, &st) != 0) {
    r->failed = true;
  } else {
    const rc_stat *s;
    r->flow = (s = rc_stats_get(&st, "flow_blocks")) ? (uint32_t)s->ival : 0;
    r->virt = (s = rc_stats_get(&st, "virtual_nodes")) ? (uint32_t)s->ival : 0;
    r->blocks_after = out->nblocks;
    rc_analysis ia, oa;
    rc_analysis_build(&ia, in, 0);
    rc_analysis_build(&oa, out, 0);
    count_uniform(in, &ia, out, r);
    for (uint32_t c = 0; c < ia.cycles.ncycles; c++) {
      r->loops_total++;
      r->loops_kept += cycle_intact(in, &ia.cycles.cycles[c], out, &oa.cycles);
    }
    for (uint32_t c = 0; c < oa.cycles.ncycles; c++)
      r->new_cycles += !cycle_is_old(in, &ia.cycles, out, &oa.cycles.cycles[c]);
    rc_analysis_free(&ia);
    rc_analysis_free(&oa);
    /* the ordering itself, from a run with the same settings on a copy */
    rc_u32vec ord = {0};
    rc_analysis pa;
    rc_analysis_build(&pa, in, 0);
    /* auto: the ordering it chose */
    const rc_stat *chosen = rc_stats_get(&st, "order");
    if (strcmp(order, "auto") == 0 && chosen && chosen->is_string)
      snprintf(r->order, sizeof r->order, "auto=%.8s", chosen->sval);
    int kind = rc_order_lookup(strcmp(order, "auto") == 0 && chosen && chosen->is_string ? chosen->sval : order);
    if (kind >= 0 && rc_compute_ordering(ctx, in, &pa.cfg, &pa.dom, &pa.pdom, (rc_order_kind)kind, NULL, &ord) == 0) {
      size_t len = 0;
      for (uint32_t i = 0; i < ord.len && len + 40 < sizeof r->sequence; i++)
        len += (size_t)snprintf(r->sequence + len, sizeof r->sequence - len, "%s%s", i ? " " : "",
                                in->blocks[ord.data[i]]->name);
    }
    rc_vec_free(&ord);
    rc_analysis_free(&pa);
  }
  rc_stats_free(&st);
  rc_module_remove_kernel(in->mod, out); /* the copy leaves the module again */
}

int cmd_orderings(int argc, char **argv) {
  const char *out = NULL, *kname = NULL, *file = NULL, *orders = "df,dfpd,bf,bfpd,rpot,domreg,auto";
  bool json = false, cond2 = false, show = false;
  cli_input_opts in = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--json")) json = true;
    else if (cli_flag(a, NULL, "--cond2")) cond2 = true;
    else if (cli_flag(a, NULL, "--show-order")) show = true;
    else if ((r = cli_opt("orderings", argc, argv, &i, NULL, "--orders", &orders)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("orderings", argc, argv, &i, "-o", "--output", &out)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("orderings", argc, argv, &i, NULL, "--kernel", &kname)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_input_opt("orderings", argc, argv, &i, &in)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("orderings", "unknown option '%s'", a);
    } else if (file) {
      return cli_usage_error("orderings", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("orderings", "no input file");
  /* check the list first: a usage error */
  char list[256];
  snprintf(list, sizeof list, "%s", orders);
  int norders = 0;
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","), norders++)
    if ((rc_order_lookup(tok) < 0 && strcmp(tok, "auto") != 0) || strcmp(tok, "custom") == 0)
      return cli_usage_error("orderings", "unknown ordering '%s' (df, dfpd, bf, bfpd, rpot, domreg, auto)", tok);
  if (norders == 0) return cli_usage_error("orderings", "--orders needs at least one ordering");
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in);
  if (!m) return EXIT_BAD_INPUT;
  rc_kernel *only = kname ? cli_pick_kernel(&ctx, m, kname) : NULL;
  if (kname && !only) {
    rc_module_free(m);
    return EXIT_BAD_INPUT;
  }
  uint32_t nthread = 0;
  for (uint32_t ki = 0; ki < m->nkernels; ki++)
    nthread += (!only || m->kernels[ki] == only) && m->kernels[ki]->level == RC_LEVEL_THREAD;
  if (nthread == 0) { /* reconverge works on thread-level kernels; a wave kernel is lowered already */
    if (only) rc_error(&ctx, "reconv orderings needs a thread-level kernel; @%s is a wave kernel", only->name);
    else rc_error(&ctx, "reconv orderings needs a thread-level kernel; the module has only wave kernels");
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
  uint32_t nk = m->nkernels;
  for (uint32_t ki = 0; ki < nk && rc == EXIT_OK; ki++) {
    rc_kernel *k = m->kernels[ki];
    if ((only && k != only) || k->level != RC_LEVEL_THREAD) continue;
    if (!json) {
      fprintf(o.f, "kernel @%s (%u blocks)\n", k->name, k->nblocks);
      /* one word per column: "uniform-kept 1/2" reads as 1 of 2 uniform branches kept */
      fprintf(o.f, "  %-11s %5s %8s %7s %13s %11s %11s\n", "order", "flow", "virtual", "blocks",
              "uniform-kept", "loops-kept", "new-cycles");
    }
    snprintf(list, sizeof list, "%s", orders);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
      row r;
      measure(&ctx, k, tok, cond2, &r);
      if (r.failed) {
        rc = EXIT_BAD_INPUT;
        break;
      }
      if (json) {
        fprintf(o.f, "{\"kernel\": ");
        cli_json_string(o.f, k->name);
        fprintf(o.f, ", \"order\": \"%s\", \"flow_blocks\": %u, \"virtual_nodes\": %u, "
                     "\"blocks_before\": %u, \"blocks_after\": %u, \"uniform_branches\": %u, "
                     "\"uniform_branches_kept\": %u, \"uniform_branches_folded\": %u, \"loops\": %u, "
                     "\"loops_kept\": %u, \"new_cycles\": %u, \"sequence\": ",
                r.order, r.flow, r.virt, k->nblocks, r.blocks_after, r.uniform_total, r.uniform_kept,
                r.uniform_folded, r.loops_total, r.loops_kept, r.new_cycles);
        cli_json_string(o.f, r.sequence);
        fputs("}\n", o.f);
      } else {
        char uni[24], loops[24];
        snprintf(uni, sizeof uni, "%u/%u", r.uniform_kept, r.uniform_total);
        snprintf(loops, sizeof loops, "%u/%u", r.loops_kept, r.loops_total);
        fprintf(o.f, "  %-11s %5u %8u %7u %13s %11s %11u\n", r.order, r.flow, r.virt, r.blocks_after, uni,
                loops, r.new_cycles);
        if (show) fprintf(o.f, "          ordering (before PrepareOrdering): %s\n", r.sequence);
      }
    }
  }
  if (rc == EXIT_OK) rc = cli_out_commit(&o); else cli_out_abort(&o);
  rc_module_free(m);
  return rc;
}
