/* reconv transforms and the pass pipeline.
 *
 * A pass has one entry point, `int pass(rc_ctx*, rc_kernel*, const rc_pass_args*, rc_stats*)`,
 * returning 0 on success and -1 after reporting an error. The pipeline (`reconv opt -p`) runs passes
 * by name, verifies between them when ctx->verify_each is set, and can print the IR after each.
 */
#ifndef RECONV_TRANSFORM_H
#define RECONV_TRANSFORM_H

#include "reconv/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pass arguments: "name[key=value,flag]" ------------------------------------------------------ */

typedef struct rc_pass_arg {
  const char *key;
  const char *value; /* NULL for a bare flag */
} rc_pass_arg;

typedef struct rc_pass_args {
  rc_pass_arg *items;
  uint32_t n;
} rc_pass_args;

const char *rc_pass_arg_get(const rc_pass_args *a, const char *key); /* value, "" for a flag, NULL */

/* ---- statistics: ordered (name, value) pairs, printed as text or JSON ------------------------------ */

typedef struct rc_stat {
  const char *name;
  bool is_string;
  int64_t ival;
  char sval[96];
} rc_stat;

typedef struct rc_stats {
  rc_stat *items;
  uint32_t n, cap;
} rc_stats;

void rc_stats_init(rc_stats *s);
void rc_stats_free(rc_stats *s);
void rc_stats_set(rc_stats *s, const char *name, int64_t v); /* name must be a string literal */
void rc_stats_add(rc_stats *s, const char *name, int64_t v);
void rc_stats_set_str(rc_stats *s, const char *name, const char *v);
const rc_stat *rc_stats_get(const rc_stats *s, const char *name);

/* ---- passes --------------------------------------------------------------------------------------- */

typedef int (*rc_pass_fn)(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);

typedef struct rc_pass_info {
  const char *name;
  const char *help; /* one line, shown by `reconv opt --list-passes` */
  rc_pass_fn run;
  rc_level input_level; /* the level the pass accepts */
  const char *options;  /* the options it takes, space-separated: `key=` takes a value, a bare
                           word is a flag; "" for none */
} rc_pass_info;

/* The passes, one entry point each (src/transform/NAME.c). */
int rc_pass_lowerswitch(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_unify_exits(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_connect_infinite_loops(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_remove_dead_blocks(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_reconverge(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
/* The end of each round of reconverge (src/transform/fold_flow_branches.c): a two-way branch
 * whose edges both end in one flow block (directly or through an empty flow block of their own)
 * becomes a jump into it, the branch's condition going into the flow block's phis; returns the
 * blocks removed. */
uint32_t rc_fold_flow_branches(rc_kernel *k);
/* Whether block b of reconverge's output had a two-way branch that reconverge folded into a flow
 * block's condition (both its edges ended in that flow block, src/transform/fold_flow_branches.c):
 * b jumps to a flow block that takes a computed i1 from b into one of its condition phis. */
bool rc_branch_folded_into_flow(const rc_block *b);
/* Anantpur and Govindarajan 2014: guard-variable linearization of the unstructured regions; the
 * output is structured (src/transform/linearize.c, docs/linearize.md) */
int rc_pass_linearize(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_ssa_repair(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
/* thesis 4.2: a reconverging thread-level kernel becomes a wave kernel (src/transform/lower.c) */
int rc_pass_lower(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_blockip(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
int rc_pass_full_linearize(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);
/* DARM control-flow melding (Saumya et al. 2022, section IV; src/transform/meld.c, docs/meld.md):
 * similar code on both sides of divergent branches melded into one path, with selects on the
 * branch condition and unaligned runs unpredicated. Changes which blocks a thread runs: check it
 * by effect traces (rc_run_spec.effect_traces). */
int rc_pass_meld(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats);

/* Two-way branches, reachable blocks, exits out of endless regions, one exit block: what reconverge
 * (thesis 4.1) and linearize prepare first (src/transform/prepare_cfg.c). */
int rc_prepare_cfg(rc_ctx *ctx, rc_kernel *k, rc_stats *stats);

const rc_pass_info *rc_pass_lookup(const char *name);
/* Check args against the registered options of pass `name`: every key known, values exactly where
 * the option takes one. Reports "NAME: ..." through ctx and returns -1 otherwise. rc_pipeline_run
 * checks every invocation; passes called directly check their own. */
int rc_pass_args_check(rc_ctx *ctx, const char *name, const rc_pass_args *args);
const rc_pass_info *rc_pass_list(uint32_t *n);

typedef struct rc_pipeline_opts {
  bool print_after_all;
  FILE *print_to;       /* where --print-after-all goes */
} rc_pipeline_opts;

/* Run a comma-separated pipeline ("lowerswitch,reconverge[order=bfpd]") on one kernel. */
int rc_pipeline_run(rc_ctx *ctx, rc_kernel *k, const char *pipeline, const rc_pipeline_opts *opts,
                    rc_stats *stats);

/* ---- block orderings for reconverge (thesis 4.3.1) ---------------------------------------------------
 * An ordering lists the blocks reachable from the entry (block ids); PrepareOrdering (inside the
 * reconverge pass) then moves the exit last and adds virtual nodes. */
typedef enum rc_order_kind {
  RC_ORDER_DF,     /* conventional depth-first pre-order, true successor first */
  RC_ORDER_DFPD,   /* depth-first obeying post-dominance (ComputeOrdering/PickBlock); the default */
  RC_ORDER_BF,     /* conventional breadth-first */
  RC_ORDER_BFPD,   /* breadth-first obeying post-dominance */
  RC_ORDER_RPOT,   /* reverse post-order (topological for acyclic parts) */
  RC_ORDER_DOMREG, /* dominance regions (Moll & Hack): pre-order of the dominator tree, exit branch last */
  RC_ORDER_CUSTOM, /* a list of block names given by the user */
  RC_ORDER_COUNT
} rc_order_kind;

const char *rc_order_name(rc_order_kind k);
int rc_order_lookup(const char *name); /* -1 when unknown */

struct rc_cfg;
struct rc_domtree;
/* Compute an ordering of the reachable blocks of k. `custom` is a list of block names separated
 * by ',' ':' or spaces, required for RC_ORDER_CUSTOM (it must name every reachable block once).
 * Returns 0, or -1 after reporting an error. */
int rc_compute_ordering(rc_ctx *ctx, const rc_kernel *k, const struct rc_cfg *g,
                        const struct rc_domtree *dom, const struct rc_domtree *pdom,
                        rc_order_kind kind, const char *custom, rc_u32vec *out);

/* ---- live-in phis (live_in_phis.c) ----------------------------------------------------------------
 * Expose every value used outside its block (except the entry's) as a phi in each block where it is
 * live-in, so a CFG transform can route it like any phi; afterwards remove the phis that became
 * trivial. `added` receives the phis created; `origin`, when not NULL, the id of the value each of
 * them stands for (parallel to `added`). */
typedef RC_VEC(rc_instr *) rc_instr_vec;
void rc_ssa_expose_live_ins(rc_kernel *k, rc_instr_vec *added, rc_u32vec *origin);
void rc_ssa_simplify_phis(rc_kernel *k, const rc_instr_vec *phis);
/* The same, with the dominator tree of k's current CFG built already (by a caller that needs it
 * too: on big kernels each build is a walk over every block). */
struct rc_domtree;
void rc_ssa_simplify_phis_dom(rc_kernel *k, const rc_instr_vec *phis, const struct rc_domtree *dom);

/* ---- scalar values for the lowering (lower_scalar.c) -----------------------------------------------
 * Which values of a thread-level kernel the lowering computes once per wave (docs/ir.md, "Wave
 * level"): scalar[v] for each value id. An instruction is scalar when the uniformity analysis says
 * its value is the same for every active lane, it cannot fault or touch memory (so running it with
 * an empty exec is harmless), and its operands are scalar; a phi when it is uniform, its block is
 * not a join of divergent lanes (vector_phi_block[b], the primary successors), and its incoming
 * values are scalar. Parameters are scalar. A greatest fixpoint: start from every candidate and
 * demote along uses until every scalar value has scalar operands. */
struct rc_uniformity;
void rc_scalar_values(const rc_kernel *k, const struct rc_uniformity *u, const uint8_t *vector_phi_block,
                      uint8_t *scalar);

/* ---- divergence at wave level (lower_divergence.c) ---------------------------------------------------
 * The lowering merges the lanes waiting at a primary successor with the wave's lanes even when they
 * are in different iterations of a loop, which the uniformity analysis (LLVM's model: uniform per
 * dynamic instance) does not consider. This refines u for that model: phis of primary successors and
 * values leaving a primary successor's region become divergent, and so does what depends on them.
 * Branches it makes divergent are appended to `branches` (block ids) and counted in the result; their
 * joins need the analysis to run again with them marked !divergent. */
struct rc_cfg;
struct rc_domtree;
uint32_t rc_wave_divergence(const rc_kernel *k, const struct rc_cfg *g, const struct rc_domtree *pdom,
                            struct rc_uniformity *u, rc_u32vec *branches);

/* ---- SSA repair (Braun et al. 2013 / SSAUpdater style), shared by every CFG transform -------------
 * A "variable" has definitions (value v is available at the end of block b, or from the point of
 * its defining instruction onward) and uses (operands, and phi incomings that read the variable
 * at the end of a predecessor). rc_ssa_repair_value rewrites every use of `def` that `def` no
 * longer dominates, inserting phis where paths merge and undef where no definition reaches. */
int rc_ssa_repair_value(rc_kernel *k, rc_value *def);
/* Repair every instruction value of the kernel whose definition no longer dominates all its uses,
 * and the incomings of phis whose blocks are no longer predecessors (their values are re-read at
 * the ends of the current predecessors). Cheap when nothing is broken. */
int rc_ssa_repair_kernel(rc_ctx *ctx, rc_kernel *k);
/* The same, with a CFG snapshot of k and its dominator tree built already (the repair changes no
 * edge, so they still describe k afterwards, e.g. for the analyses that follow). */
struct rc_cfg;
int rc_ssa_repair_kernel_dom(rc_ctx *ctx, rc_kernel *k, const struct rc_cfg *g, const struct rc_domtree *dom);
/* The repair after a linearization, which inserted only blocks flagged RC_BLOCK_GUARD and whose
 * every feasible path (the guards' values taken into account) runs the original blocks as the input
 * did. A phi of an original block T then takes a value only along an original edge, from one of its
 * incoming blocks; an original block that is none of them is always followed by one before T, so the
 * value at its end is dead and reads undef. Plain SSA repair, which knows no guard, would carry the
 * value around loops instead (a phi for each loop the guard blocks put around T). */
int rc_ssa_repair_linearized(rc_ctx *ctx, rc_kernel *k);
/* A switch of block b whose cases go to two distinct targets becomes `br (x == c1 | ...), T, default`
 * (same successors, no new block); false, and nothing changed, for any other terminator. */
bool rc_switch_to_branch(rc_kernel *k, rc_block *b);
/* On the LLVM path (k->origin set): webs of phis the transforms made that carry one getelementptr
 * (or undef) become copies of it at their uses (src/transform/remat_addresses.c), so that no new
 * phi merges pointers. Returns the number of webs replaced. */
uint32_t rc_remat_addresses(rc_ctx *ctx, rc_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
