/* Property test of reconv gen: for thousands of seeds and knob settings, the generated kernel
 * verifies and has the requested shape, checked from the IR alone (gencheck.h):
 * - K ret blocks, every block reachable and storing to memory;
 * - reducible without --irreducible, with exactly L back edges and loops nested min(L, D) deep;
 *   irreducible with --irreducible;
 * - a branch's condition depends on @global_id exactly when the generator marked it divergent,
 *   none with P = 0 (but the latch of the loop given a second entry), all with P = 1;
 * - every uniform loop is entered and left by one edge each (what keeps its counter uniform);
 * - the text form round-trips, and the same options give the same kernel. */
#include "gencheck.h"
#include "reconv/gen.h"
#include "test.h"

#include <stdlib.h>

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/* The knobs for iteration `it`: sizes 1..120 blocks, every combination of flags. */
static void knobs(unsigned it, rc_gen_opts *o) {
  uint64_t h = mix64(it * 0x9E3779B97F4A7C15ull + 1);
  rc_gen_opts_init(o);
  o->seed = h;
  o->blocks = 1 + (uint32_t)(h % 120);
  o->exits = 1 + (uint32_t)((h >> 8) % 4);
  if (o->exits > 1 && o->blocks < 2 * o->exits - 1) o->exits = 1;
  o->nesting = 1 + (uint32_t)((h >> 12) % 4);
  o->loops = (uint32_t)((h >> 16) % (o->blocks / 6 + 2));
  static const double shares[] = {0.0, 0.25, 0.5, 0.75, 1.0};
  o->divergent = shares[(h >> 24) % 5];
  o->irreducible = (h >> 28) & 1;
  o->switches = (h >> 29) & 1;
  o->annotate = true;
  if (o->irreducible && o->loops == 0) o->loops = 1;
}

/* Bounds on the blocks (besides the entry and the exits) that L loops nested D deep need: at
 * least a chain of depth min(L, D) (2 min(L, D) - 1 blocks) and one block per further loop; at
 * most a header and a latch per loop. One irreducible loop alone needs 2. */
static void loop_room(const rc_gen_opts *o, uint64_t *room, uint64_t *lower, uint64_t *upper) {
  uint32_t spine = o->blocks - (o->exits - 1);
  uint64_t chain = o->loops < o->nesting ? o->loops : o->nesting;
  *room = spine >= 2 ? spine - 2 : 0;
  *lower = (chain ? 2 * chain - 1 : 0) + (o->loops - chain);
  *upper = 2ull * o->loops;
  if (o->irreducible && o->loops == 1) *lower = *upper = 2;
}

TEST(generated_kernels_have_the_requested_shape) {
  unsigned n = test_scaled(3000), generated = 0, irreducible = 0, refused = 0;
  for (unsigned it = 0; it < n; it++) {
    rc_gen_opts o;
    knobs(it, &o);
    test_diags d;
    test_diags_init(&d);
    rc_module *m = rc_module_new(&d.ctx, "prop");
    rc_gen_info info;
    rc_kernel *k = rc_gen_kernel(m, &o, &info);
    if (!k) {
      /* refused only when the loops cannot fit */
      uint64_t room, lower, upper;
      loop_room(&o, &room, &lower, &upper);
      CHECK(room < upper);
      CHECK_STR_CONTAINS(d.text, "blocks besides the entry and the exits");
      refused++;
      rc_module_free(m);
      continue;
    }
    generated++;
    CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
    if (d.len) fprintf(stderr, "iteration %u (seed %llu): %s", it, (unsigned long long)o.seed, d.text);
    CHECK_EQ_INT(k->nblocks, o.blocks);
    CHECK_EQ_INT(gc_count_ops(k, RC_OP_RET), o.exits);
    CHECK(gc_every_block_stores(k));
    CHECK_EQ_INT(gc_count_ops(k, RC_OP_SWITCH), info.switches);
    /* without --switches a switch appears only where one block must reach several required
     * targets (side exits, second loop entries) */
    if (!o.switches && o.exits == 1 && !o.irreducible) CHECK_EQ_INT(info.switches, 0);
    {
      uint64_t room, lower, upper;
      loop_room(&o, &room, &lower, &upper);
      CHECK(room >= lower);
    }
    gc_cfg_facts f = gc_cfg_check(k);
    CHECK(f.all_reachable);
    if (o.irreducible) {
      CHECK(!f.reducible);
      CHECK(info.irreducible_loops >= 1);
      irreducible++;
    } else {
      CHECK(f.reducible);
      CHECK_EQ_INT(f.back_edges, o.loops);
      CHECK_EQ_INT(f.max_depth, o.loops < o.nesting ? o.loops : o.nesting);
      CHECK(gc_check_uniform_loops(k) >= 0);
    }
    CHECK_EQ_INT(info.max_depth, o.loops < o.nesting ? o.loops : o.nesting);
    /* divergent exactly when the condition depends on the thread id */
    uint8_t *dep = gc_tid_dependence(k);
    uint32_t div = 0, uni = 0;
    for (uint32_t b = 0; b < k->nblocks; b++) {
      const rc_instr *t = rc_block_term(k->blocks[b]);
      if (!t || (t->op != RC_OP_BR && t->op != RC_OP_SWITCH)) continue;
      bool d_ = dep[t->ops[0]->id];
      CHECK_EQ_INT(d_, (t->iflags & RC_IF_DIVERGENT) != 0);
      CHECK_EQ_INT(!d_, (t->iflags & RC_IF_UNIFORM) != 0);
      if (d_) div++;
      else uni++;
    }
    free(dep);
    CHECK_EQ_INT(div, info.divergent_branches);
    CHECK_EQ_INT(uni, info.uniform_branches);
    /* with P = 0 only the loop given the second entry is divergent: a uniform loop must have a
     * single entry */
    if (o.divergent == 0.0) CHECK_EQ_INT(div, o.irreducible ? 1 : 0);
    if (o.divergent == 1.0) CHECK_EQ_INT(uni, 0);
    /* the text form round-trips, and generation is deterministic (on a sample) */
    if (it % 16 == 0) {
      char *text = test_print(m);
      rc_module *back = test_parse(&d, text);
      CHECK(back != NULL);
      if (back) {
        char *again = test_print(back);
        CHECK(strcmp(text, again) == 0);
        free(again);
        rc_module_free(back);
      }
      rc_module *m2 = rc_module_new(&d.ctx, "prop");
      CHECK(rc_gen_kernel(m2, &o, NULL) != NULL);
      char *text2 = test_print(m2);
      CHECK(strcmp(text, text2) == 0);
      free(text2);
      rc_module_free(m2);
      free(text);
    }
    rc_module_free(m);
  }
  printf("  %u kernels generated (%u irreducible), %u option sets refused\n", generated, irreducible,
         refused);
  CHECK(generated > n / 2);
  CHECK(irreducible > 0);
}
