/* Live-in phis and their simplification (live_in_phis.c), and the SSA repair (ssa_repair.c): which
 * trivial phis go and which must stay; what the repair places and when it leaves a kernel alone. */
#include "reconv/sim.h"
#include "reconv/transform.h"
#include "test.h"

/* %p2 is [undef, %p1]: on entry from L it holds %p1 of the previous pass through H. Replacing it
 * by %p1 would store the new value instead (the bug the flow_cycle_sibling_phi golden test keeps). */
static const char *sibling_text =
    "kernel @k(ptr %out, i32 %n) !run \"--arg out=i32[1] --arg n=3\" {\n"
    "entry:\n  jmp H\n"
    "H:\n  %p1 = phi i32 [0, entry], [%x, L]\n  %p2 = phi i32 [undef, entry], [%p1, L]\n"
    "  %x = add i32 %p1, 1\n  %c = icmp slt i32 %x, %n\n  br %c, L, X\n"
    "L:\n  jmp H\n"
    "X:\n  store i32 %p2, %out\n  ret\n}\n";

static rc_instr *find_phi(rc_kernel *k, const char *block, uint32_t nth) {
  rc_block *b = rc_kernel_find_block(k, block);
  for (rc_instr *i = b ? b->first : NULL; i && i->op == RC_OP_PHI; i = i->next)
    if (nth-- == 0) return i;
  return NULL;
}

/* What the kernel stores to out[0], run by one thread. */
static int64_t stored(test_diags *d, rc_kernel *k) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  rc_memory mem = {0};
  rc_fault f = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  int64_t out = -1;
  if (rc_run_spec_parse_string(&d->ctx, &s, k->run_spec) == 0 && rc_run_spec_check(&d->ctx, &s, k) == 0 &&
      rc_memory_init(&d->ctx, &mem, &s, k) == 0 && rc_interp_run(&d->ctx, k, &s, &mem, NULL, &st, &f) == 0) {
    int32_t v;
    memcpy(&v, rc_memory_find(&mem, "out")->data, sizeof v);
    out = v;
  }
  rc_run_stats_free(&st);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  return out;
}

TEST(a_phi_of_a_sibling_phi_and_undef_is_not_simplified) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, sibling_text);
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  CHECK_EQ_INT(stored(&d, k), 1); /* p1 runs 0, 1, 2; p2 is p1 of the pass before the last */
  rc_instr *p2 = find_phi(k, "H", 1);
  CHECK(p2 != NULL);
  rc_instr_vec phis = {0};
  rc_vec_push(&phis, p2);
  rc_ssa_simplify_phis(k, &phis);
  rc_vec_free(&phis);
  CHECK(p2->parent != NULL);
  CHECK(rc_verify_kernel(&d.ctx, k) == 0);
  CHECK_EQ_INT(stored(&d, k), 1);
  rc_module_free(m);
}

TEST(a_phi_of_a_dominating_value_and_undef_is_simplified) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d,
                            "kernel @k(ptr %out, i32 %n) {\nentry:\n  %a = add i32 %n, 1\n  jmp H\n"
                            "H:\n  %p = phi i32 [undef, entry], [%a, H]\n  %c = icmp slt i32 %p, %n\n"
                            "  br %c, H, X\nX:\n  store i32 %p, %out\n  ret\n}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_instr *p = find_phi(k, "H", 0);
  rc_instr_vec phis = {0};
  rc_vec_push(&phis, p);
  rc_ssa_simplify_phis(k, &phis);
  rc_vec_free(&phis);
  CHECK(p->parent == NULL);
  rc_block *x = rc_kernel_find_block(k, "X");
  CHECK(x && x->first->op == RC_OP_STORE && x->first->ops[0]->kind == RC_V_INSTR &&
        rc_value_instr(x->first->ops[0])->op == RC_OP_ADD);
  CHECK(rc_verify_kernel(&d.ctx, k) == 0);
  rc_module_free(m);
}

/* ---- SSA repair (ssa_repair.c) ------------------------------------------------------------------ */

/* B jumps to A; %x is defined in A and used in J (through a phi and directly). Retargeting B's edge
 * from A to J breaks both: %x no longer dominates its use in J, and J's phi lacks an entry for B. */
static const char *retarget_text =
    "kernel @k(ptr %out, i32 %n) !run \"--arg out=i32[1] --arg n=5\" {\n"
    "entry:\n  %c = icmp slt i32 %n, 3\n  br %c, A, B\n"
    "A:\n  %x = add i32 %n, 1\n  jmp J\n"
    "B:\n  jmp A\n"
    "J:\n  %p = phi i32 [7, A]\n  %s = add i32 %p, %x\n  store i32 %s, %out\n  ret\n}\n";

static uint32_t count_phis(rc_block *b) {
  uint32_t n = 0;
  for (rc_instr *i = b->first; i && i->op == RC_OP_PHI; i = i->next) n++;
  return n;
}

TEST(ssa_repair_leaves_a_valid_kernel_alone) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, retarget_text);
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  uint32_t values = k->nvalues;
  CHECK(rc_ssa_repair_kernel(&d.ctx, k) == 0);
  CHECK_EQ_INT(k->nvalues, values); /* no phi was placed, not even one deleted afterwards */
  CHECK_EQ_INT(count_phis(rc_kernel_find_block(k, "J")), 1);
  CHECK_EQ_INT(stored(&d, k), 13); /* n = 5: B, A, J: 7 + 6 */
  rc_module_free(m);
}

TEST(ssa_repair_fixes_a_broken_definition_and_a_stale_phi) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, retarget_text);
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_block *b = rc_kernel_find_block(k, "B"), *j = rc_kernel_find_block(k, "J");
  rc_term_set_target(rc_block_term(b), 0, j);
  CHECK(rc_verify_kernel(&d.ctx, k) != 0); /* broken before the repair */
  d.len = 0; /* the verifier's messages are expected */
  CHECK(rc_ssa_repair_kernel(&d.ctx, k) == 0);
  CHECK(rc_verify_kernel(&d.ctx, k) == 0);
  /* %x reaches J only from A: a placed phi [%x, A], [undef, B]; the stale phi gets undef for B */
  CHECK_EQ_INT(count_phis(j), 2);
  rc_instr *s = j->first;
  while (s && s->op == RC_OP_PHI) s = s->next;
  CHECK(s && s->op == RC_OP_ADD);
  rc_instr *xphi = s ? rc_value_instr(s->ops[1]) : NULL;
  CHECK(xphi && xphi->op == RC_OP_PHI && xphi->parent == j && xphi->nops == 2);
  rc_instr *p = s ? rc_value_instr(s->ops[0]) : NULL;
  CHECK(p && p->op == RC_OP_PHI && p->nops == 2);
  for (uint32_t o = 0; p && o < p->nops; o++)
    CHECK(p->targets[o] == b ? p->ops[o]->kind == RC_V_UNDEF : p->ops[o]->kind == RC_V_CONST);
  rc_module_free(m);
}
