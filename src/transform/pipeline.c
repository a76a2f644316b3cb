/* The pass registry and pipeline runner (`reconv opt -p`).
 *
 * A pipeline is a comma-separated list of pass invocations, each `name` or `name[key=value,flag]`
 * (the brackets may hold commas). The verifier runs after every pass when ctx->verify_each is set,
 * so a broken pass is caught where it broke the IR, not later. */
#include "reconv/transform.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- statistics ------------------------------------------------------------------------------ */

void rc_stats_init(rc_stats *s) {
  memset(s, 0, sizeof *s);
}

void rc_stats_free(rc_stats *s) {
  free(s->items);
  memset(s, 0, sizeof *s);
}

static rc_stat *stats_slot(rc_stats *s, const char *name) {
  for (uint32_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i].name, name) == 0) return &s->items[i];
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->items = rc_xrealloc(s->items, s->cap * sizeof *s->items);
  }
  rc_stat *st = &s->items[s->n++];
  memset(st, 0, sizeof *st);
  st->name = name;
  return st;
}

void rc_stats_set(rc_stats *s, const char *name, int64_t v) {
  rc_stat *st = stats_slot(s, name);
  st->is_string = false;
  st->ival = v;
}

void rc_stats_add(rc_stats *s, const char *name, int64_t v) {
  rc_stat *st = stats_slot(s, name);
  st->ival += v;
}

void rc_stats_set_str(rc_stats *s, const char *name, const char *v) {
  rc_stat *st = stats_slot(s, name);
  st->is_string = true;
  snprintf(st->sval, sizeof st->sval, "%s", v);
}

const rc_stat *rc_stats_get(const rc_stats *s, const char *name) {
  for (uint32_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i].name, name) == 0) return &s->items[i];
  return NULL;
}

/* ---- pass arguments ------------------------------------------------------------------------------ */

const char *rc_pass_arg_get(const rc_pass_args *a, const char *key) {
  if (!a) return NULL;
  for (uint32_t i = 0; i < a->n; i++)
    if (strcmp(a->items[i].key, key) == 0) return a->items[i].value ? a->items[i].value : "";
  return NULL;
}

/* ---- the registry ---------------------------------------------------------------------------------- */

static const rc_pass_info passes[] = {
    {"lowerswitch", "switch -> two-way branches, one per distinct target",
     rc_pass_lowerswitch, RC_LEVEL_THREAD, ""},
    {"unify-exits", "one exit block when there are several (thesis 4.1 step 1)", rc_pass_unify_exits,
     RC_LEVEL_THREAD, ""},
    {"connect-infinite-loops", "give blocks that cannot reach an exit a never-taken exit edge",
     rc_pass_connect_infinite_loops, RC_LEVEL_THREAD, ""},
    {"remove-dead-blocks", "delete blocks unreachable from the entry", rc_pass_remove_dead_blocks,
     RC_LEVEL_THREAD, ""},
    {"reconverge",
     "make the CFG reconverging (thesis 4.3); options: order=auto|dfpd|df|bf|bfpd|rpot|domreg|custom "
     "(auto, the default: the cheapest lowered result of dfpd, rpot, domreg and, up to 200 blocks, bfpd), "
     "cost=gcn|host (what auto calls cheapest: the GCN model, the default, or the weights calibrated on "
     "this host's vector unit, docs/cost.md), "
     "blocks=A:B:C (custom order), all-divergent, force (run even if already reconverging), "
     "cond2 (the thesis's Condition 2), trace, max-rounds=N (default 4)",
     rc_pass_reconverge, RC_LEVEL_THREAD, "order= cost= blocks= all-divergent force cond2 trace max-rounds="},
    {"linearize",
     "guard-variable linearization of the unstructured regions, output structured (Anantpur and "
     "Govindarajan 2014); options: opt=0..3 (O1, O2, O3 of section 4.2, cumulative; default 3), "
     "region=min|fold|all (Algorithm 2 from the unstructured edges, also from what maximal folding "
     "leaves, or the whole kernel as in section 3), order=rpo|interleave, "
     "merge-loops (one back edge for nested loops, Fig. 8), show-values (the guard values at each guard)",
     rc_pass_linearize, RC_LEVEL_THREAD, "opt= region= order= merge-loops show-values"},
    {"meld",
     "DARM control-flow melding (Saumya et al. 2022): similar subgraphs on both sides of a divergent "
     "branch melded, selects on its condition, unaligned runs unpredicated; options: threshold=T "
     "(melding profitability, default 0.2), max-rounds=N (default 1000), nosimplify (no region "
     "simplification, section IV-A: regions that are not simple as a whole are left alone)",
     rc_pass_meld, RC_LEVEL_THREAD, "threshold= max-rounds= nosimplify"},
    {"ssa-repair", "restore SSA dominance and phi incomings after CFG edits", rc_pass_ssa_repair,
     RC_LEVEL_THREAD, ""},
    {"lower",
     "a reconverging kernel -> wave kernel with exec and re-join masks (thesis 4.2); options: "
     "skip-threshold=N (keep a brexecz over a secondary region of N or more instructions, or with a "
     "memory access, call or branch in it; default 12, LLVM's amdgpu-skip-threshold; 0: every one), noskip "
     "(brexecz only where a loop or a vector branch needs it), noflow (zero the re-join mask on "
     "side entries instead of a flow block that does the restore; flow: the default), noscalar "
     "(no !scalar instructions), all-divergent, norepair (refuse, instead of running reconverge "
     "again, a branch only divergent at wave level), zero-max=N (a re-join mask zeroed in at most N "
     "blocks before its region, else cleared after its restore; default 64)",
     rc_pass_lower, RC_LEVEL_THREAD, "skip-threshold= noskip flow noflow noscalar all-divergent norepair zero-max="},
    {"blockip",
     "any kernel -> wave kernel with a per-lane next-block label, blocks swept in one layout, empty ones "
     "skipped (the Beignet note)",
     rc_pass_blockip, RC_LEVEL_THREAD, ""},
    {"full-linearize",
     "any kernel -> wave kernel with every branch predicated, every block run in one layout, loops "
     "repeated while any lane takes the back edge (the textbook baseline)",
     rc_pass_full_linearize, RC_LEVEL_THREAD, ""},
};

const rc_pass_info *rc_pass_list(uint32_t *n) {
  *n = sizeof passes / sizeof passes[0];
  return passes;
}

const rc_pass_info *rc_pass_lookup(const char *name) {
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
    if (strcmp(passes[i].name, name) == 0) return &passes[i];
  return NULL;
}

/* Does the space-separated option list have `key` (as a flag, or as `key=` when *takes_value)? */
static bool option_known(const char *list, const char *key, bool *takes_value) {
  size_t n = strlen(key);
  for (const char *p = list; *p;) {
    while (*p == ' ') p++;
    const char *e = p;
    while (*e && *e != ' ') e++;
    size_t len = (size_t)(e - p);
    bool valued = len > 0 && p[len - 1] == '=';
    if ((valued ? len - 1 : len) == n && n > 0 && memcmp(p, key, n) == 0) {
      *takes_value = valued;
      return true;
    }
    p = e;
  }
  return false;
}

int rc_pass_args_check(rc_ctx *ctx, const char *name, const rc_pass_args *args) {
  const rc_pass_info *pi = rc_pass_lookup(name);
  const char *list = pi ? pi->options : "";
  for (uint32_t i = 0; args && i < args->n; i++) {
    const rc_pass_arg *a = &args->items[i];
    bool takes_value = false;
    if (!a->key[0]) return rc_error(ctx, "%s: an option without a name", name);
    if (!option_known(list, a->key, &takes_value)) {
      if (!*list) return rc_error(ctx, "%s: unknown option '%s' (the pass takes no options)", name, a->key);
      return rc_error(ctx, "%s: unknown option '%s' (options: %s)", name, a->key, list);
    }
    if (takes_value && !a->value) return rc_error(ctx, "%s: option %s needs a value (%s=...)", name, a->key, a->key);
    if (!takes_value && a->value) return rc_error(ctx, "%s: option %s is a flag and takes no value", name, a->key);
  }
  return 0;
}

/* ---- parsing a pipeline ------------------------------------------------------------------------------ */

typedef struct invocation {
  char *name;
  rc_pass_args args;
} invocation;

static void free_invocations(invocation *inv, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    free(inv[i].name);
    for (uint32_t a = 0; a < inv[i].args.n; a++) {
      free((char *)inv[i].args.items[a].key);
      free((char *)inv[i].args.items[a].value);
    }
    free(inv[i].args.items);
  }
  free(inv);
}

static char *dup_range(const char *s, const char *e) {
  while (s < e && isspace((unsigned char)*s)) s++;
  while (e > s && isspace((unsigned char)e[-1])) e--;
  char *r = rc_xmalloc((size_t)(e - s) + 1);
  memcpy(r, s, (size_t)(e - s));
  r[e - s] = 0;
  return r;
}

/* Split "a,b[x=1,y],c" into invocations. Returns NULL (after an error) on malformed text. */
static invocation *parse_pipeline(rc_ctx *ctx, const char *text, uint32_t *count) {
  RC_VEC(invocation) v = {0};
  const char *p = text;
  for (;;) {
    const char *start = p;
    while (*p && *p != ',' && *p != '[') p++;
    invocation inv = {dup_range(start, p), {0}};
    if (!inv.name[0]) {
      free(inv.name);
      rc_error(ctx, "pipeline '%s': empty pass name", text);
      free_invocations(v.data, v.len);
      return NULL;
    }
    if (*p == '[') {
      const char *close = strchr(p, ']');
      if (!close) {
        rc_error(ctx, "pipeline '%s': missing ']' after pass %s", text, inv.name);
        free(inv.name);
        free_invocations(v.data, v.len);
        return NULL;
      }
      const char *a = p + 1;
      while (a < close) {
        const char *e = a;
        while (e < close && *e != ',') e++;
        const char *eq = memchr(a, '=', (size_t)(e - a));
        rc_pass_arg arg;
        arg.key = dup_range(a, eq ? eq : e);
        arg.value = eq ? dup_range(eq + 1, e) : NULL;
        /* empty items ("[,]", "[=]") are kept, so that the option check names them */
        inv.args.items = rc_xrealloc(inv.args.items, (inv.args.n + 1) * sizeof *inv.args.items);
        inv.args.items[inv.args.n++] = arg;
        a = e + 1;
      }
      p = close + 1;
      while (*p && isspace((unsigned char)*p)) p++;
      if (*p && *p != ',') {
        rc_error(ctx, "pipeline '%s': expected ',' after ']'", text);
        rc_vec_push(&v, inv);
        free_invocations(v.data, v.len);
        return NULL;
      }
    }
    rc_vec_push(&v, inv);
    if (!*p) break;
    p++; /* ',' */
  }
  *count = v.len;
  return v.data;
}

int rc_pipeline_run(rc_ctx *ctx, rc_kernel *k, const char *pipeline, const rc_pipeline_opts *opts,
                    rc_stats *stats) {
  uint32_t n = 0;
  invocation *inv = parse_pipeline(ctx, pipeline, &n);
  if (!inv) return -1;
  int rc = 0;
  for (uint32_t i = 0; i < n && rc == 0; i++) {
    const rc_pass_info *pi = rc_pass_lookup(inv[i].name);
    if (!pi) { /* name the passes there are (the library's callers are not all the CLI) */
      uint32_t np;
      const rc_pass_info *all = rc_pass_list(&np);
      rc_strbuf names = {0};
      for (uint32_t j = 0; j < np; j++) rc_sb_printf(&names, "%s%s", j ? ", " : "", all[j].name);
      rc = rc_error(ctx, "unknown pass '%s' (the passes: %s)", inv[i].name, names.data ? names.data : "");
      rc_sb_free(&names);
      break;
    }
    if (rc_pass_args_check(ctx, pi->name, &inv[i].args)) {
      rc = -1;
      break;
    }
    if (k->level != pi->input_level) {
      rc = rc_error(ctx, "pass %s needs a %s-level kernel; @%s is %s level", pi->name,
                    pi->input_level == RC_LEVEL_THREAD ? "thread" : "wave", k->name,
                    k->level == RC_LEVEL_THREAD ? "thread" : "wave");
      break;
    }
    rc = pi->run(ctx, k, &inv[i].args, stats);
    if (rc == 0 && ctx->verify_each && rc_verify_kernel(ctx, k) != 0)
      rc = rc_error(ctx, "the IR is invalid after pass %s on kernel @%s (a bug in reconv)", pi->name,
                    k->name);
    if (rc == 0 && opts && opts->print_after_all) {
      rc_strbuf sb;
      rc_sb_init(&sb);
      rc_print_kernel(k, &sb);
      FILE *f = opts->print_to ? opts->print_to : stderr;
      fprintf(f, "; *** IR after %s ***\n%s", pi->name, sb.data ? sb.data : "");
      rc_sb_free(&sb);
    }
  }
  free_invocations(inv, n);
  return rc;
}
