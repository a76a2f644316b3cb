/* The wave simulator (src/sim/wave.c, lanes.c, waverun.c) on hand-written wave kernels: the
 * semantics of exec, ballot, setexec, scalar and vector registers, brexecz; the run-time check of
 * scalar branches; faults (named by thread and lane, or by wave); lanes past the end of the launch;
 * metrics; traces; the timeline and its picture. */
#include "test.h"

#include "reconv/sim.h"

#include <stdlib.h>

typedef struct run {
  rc_memory mem;
  rc_traces tr;
  rc_run_stats st;
  rc_fault fault;
  rc_timeline tl;
  int rc;
} run;

/* Run the first kernel of text on the wave simulator with its !run spec. */
static rc_module *run_wave(test_diags *d, const char *text, run *r, bool timeline) {
  memset(r, 0, sizeof *r);
  rc_module *m = test_parse(d, text);
  if (!m) {
    fprintf(stderr, "%s", d->text);
    r->rc = -2;
    return NULL;
  }
  rc_kernel *k = m->kernels[0];
  rc_run_spec s;
  rc_run_spec_init(&s);
  r->rc = rc_run_spec_parse_kernel(&d->ctx, &s, k);
  if (r->rc == 0) r->rc = rc_memory_init(&d->ctx, &r->mem, &s, k);
  if (r->rc == 0) r->rc = rc_wave_run(&d->ctx, k, &s, &r->mem, &r->tr, &r->st, &r->fault, timeline ? &r->tl : NULL);
  rc_run_spec_free(&s);
  return m;
}

static void run_free(run *r, rc_module *m) {
  rc_memory_free(&r->mem);
  rc_traces_free(&r->tr);
  rc_run_stats_free(&r->st);
  rc_timeline_free(&r->tl);
  if (m) rc_module_free(m);
}

static int32_t out_elem(const run *r, uint32_t i) {
  int32_t v;
  memcpy(&v, r->mem.bufs[0].data + 4 * i, 4);
  return v;
}

TEST(exec_ballot_setexec_and_registers) {
  test_diags d;
  test_diags_init(&d);
  run r;
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                          "  reg vector i32 $v\n"
                          "  reg scalar i32 $s\n"
                          "entry:\n"
                          "  %tid = call i32 @global_id(i32 0)\n"
                          "  %lane = call i32 @lane_id()\n"
                          "  %o = gep %out, i32 %tid, 4\n"
                          "  %c = icmp ult i32 %lane, 2\n"
                          "  %b = ballot %c\n"
                          "  %e = exec\n"
                          "  %rest = andn mask %e, %b\n"
                          "  rset $v, %tid\n"
                          "  setexec %b\n"
                          "  %k = add i32 %tid, 100\n"
                          "  rset $v, %k\n"
                          "  rset $s, 7\n"
                          "  setexec %e\n"
                          "  %r = rget $v\n"
                          "  %sv = rget $s\n"
                          "  %sum = add i32 %r, %sv\n"
                          "  store i32 %sum, %o\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK_EQ_INT(r.rc, 0);
  /* lanes 0 and 1 of each wave wrote tid + 100 to $v, the others kept tid; $s is 7 for the wave */
  for (uint32_t t = 0; r.rc == 0 && t < 8; t++) CHECK_EQ_INT(out_elem(&r, t), (t % 4 < 2 ? t + 100 : t) + 7);
  /* per wave, by the cost model (docs/cost.md): 7 vector instructions, 6 of them with 4 lanes and
   * `add %k` with 2; `rset $v, %tid` is no move (%tid can live in $v: the write of %k comes after
   * %tid's last use), `rset $v, %k` is coalesced (%k is computed into $v); ballot, exec and the
   * rgets cost nothing; 3 mask (andn and the two setexecs, neither fed by a mask operation);
   * 2 scalar (rset $s, ret) */
  CHECK_EQ_INT(r.st.waves, 2);
  CHECK_EQ_INT(r.st.vector_instrs, 14);
  CHECK_EQ_INT(r.st.mask_instrs, 6);
  CHECK_EQ_INT(r.st.scalar_instrs, 4);
  CHECK_EQ_INT(r.st.active_lane_instrs, 52);
  CHECK(rc_simd_efficiency(&r.st) > 0.928 && rc_simd_efficiency(&r.st) < 0.929);
  run_free(&r, m);
}

TEST(brexecz_and_traces_follow_the_active_lanes) {
  test_diags d;
  test_diags_init(&d);
  run r;
  /* lanes with lane < 1 (lane 0) go to T; the rest skip T when nobody is left... lane 0 only
   * runs T, then J activates everybody again; the second brexecz finds exec empty and skips U */
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 4 --wave 4 --arg out=i32[N]\" {\n"
                          "  reg scalar mask $all\n"
                          "entry:\n"
                          "  %lane = call i32 @lane_id()\n"
                          "  %c = icmp eq i32 %lane, 0\n"
                          "  %e = exec\n"
                          "  rset $all, %e\n"
                          "  %b = ballot %c\n"
                          "  setexec %b\n"
                          "  brexecz J, T\n"
                          "T:\n"
                          "  jmp J\n"
                          "J:\n"
                          "  %a = rget $all\n"
                          "  setexec %a\n"
                          "  %z = icmp eq i32 %lane, 9\n"
                          "  %bz = ballot %z\n"
                          "  setexec %bz\n"
                          "  brexecz X, U\n"
                          "U:\n"
                          "  jmp X\n"
                          "X:\n"
                          "  %a2 = rget $all\n"
                          "  setexec %a2\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK_EQ_INT(r.rc, 0);
  if (r.rc == 0) {
    const rc_kernel *k = m->kernels[0];
    uint64_t n0, n1;
    const uint32_t *t0 = rc_traces_thread(&r.tr, 0, &n0), *t1 = rc_traces_thread(&r.tr, 1, &n1);
    /* lane 0: entry T J X; lane 1: entry J X (activated in J by setexec, and in X) */
    CHECK_EQ_INT(n0, 4);
    CHECK_EQ_INT(n1, 3);
    if (n0 == 4) CHECK(strcmp(k->blocks[t0[1]]->name, "T") == 0 && strcmp(k->blocks[t0[3]]->name, "X") == 0);
    if (n1 == 3) CHECK(strcmp(k->blocks[t1[1]]->name, "J") == 0 && strcmp(k->blocks[t1[2]]->name, "X") == 0);
    /* U was skipped: never entered */
    CHECK_EQ_INT(r.st.block_entries[rc_kernel_find_block(k, "U")->id], 0);
    CHECK_EQ_INT(r.st.block_entries[rc_kernel_find_block(k, "T")->id], 1);
  }
  run_free(&r, m);
}

TEST(scalar_branch_whose_lanes_disagree_is_a_fault) {
  test_diags d;
  test_diags_init(&d);
  run r;
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                          "entry:\n"
                          "  %lane = call i32 @lane_id()\n"
                          "  %c = icmp ult i32 %lane, 2\n"
                          "  br %c, A, B !uniform\n"
                          "A:\n"
                          "  ret\n"
                          "B:\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK(r.rc != 0 && r.fault.happened);
  CHECK_STR_CONTAINS(r.fault.message, "wave 0 (threads 0..3)");
  CHECK_STR_CONTAINS(r.fault.message, "the active lanes disagree");
  CHECK_STR_CONTAINS(r.fault.message, "lane 0: 1, lane 2: 0");
  run_free(&r, m);
  /* the same branch is fine when only agreeing lanes are active, and on a scalar value */
  m = run_wave(&d,
               "wave kernel @w(ptr %out, i32 %n) !run \"--global 8 --wave 4 --arg out=i32[N] --arg n=3\" {\n"
               "entry:\n"
               "  %lane = call i32 @lane_id()\n"
               "  %c = icmp ult i32 %lane, 2\n"
               "  %b = ballot %c\n"
               "  setexec %b\n"
               "  br %c, A, B\n"
               "A:\n"
               "  %u = icmp sgt i32 %n, 2 !scalar\n"
               "  %e = exec\n"
               "  %none = xor mask %e, %e\n"
               "  setexec %none\n"
               "  br %u, B, B\n"
               "B:\n"
               "  ret\n"
               "}\n",
               &r, false);
  CHECK_EQ_INT(r.rc, 0);
  run_free(&r, m);
}

TEST(vector_branch_with_no_active_lane_is_a_fault) {
  test_diags d;
  test_diags_init(&d);
  run r;
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 4 --wave 4 --arg out=i32[N]\" {\n"
                          "entry:\n"
                          "  %lane = call i32 @lane_id()\n"
                          "  %c = icmp ult i32 %lane, 9\n"
                          "  %e = exec\n"
                          "  %none = xor mask %e, %e\n"
                          "  setexec %none\n"
                          "  br %c, A, A\n"
                          "A:\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK(r.fault.happened);
  CHECK_STR_CONTAINS(r.fault.message, "no active lane");
  run_free(&r, m);
}

TEST(faults_name_thread_and_lane_and_only_active_lanes_fault) {
  test_diags d;
  test_diags_init(&d);
  run r;
  /* lane 0 divides by zero, but only while it is active */
  const char *k1 = "wave kernel @w(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                   "entry:\n"
                   "  %tid = call i32 @global_id(i32 0)\n"
                   "  %lane = call i32 @lane_id()\n"
                   "  %c = icmp ne i32 %lane, 0\n"
                   "  %b = ballot %c\n"
                   "  setexec %b\n"
                   "  %q = sdiv i32 100, %lane\n"
                   "  %e = exec\n"
                   "  %all = or mask %e, 0xf\n"
                   "  setexec %all\n"
                   "  %q2 = sdiv i32 100, %tid\n"
                   "  ret\n"
                   "}\n";
  rc_module *m = run_wave(&d, k1, &r, false);
  CHECK(r.fault.happened);
  CHECK_STR_CONTAINS(r.fault.message, "instruction `%q2 = sdiv i32 100, %tid`");
  CHECK_STR_CONTAINS(r.fault.message, "thread 0 (wave 0, lane 0): division by zero");
  run_free(&r, m);
  /* the step budget counts per lane; an endless loop exceeds it */
  m = run_wave(&d,
               "wave kernel @w(ptr %out) !run \"--global 4 --wave 4 --arg out=i32[N] --steps 50\" {\n"
               "entry:\n"
               "  jmp L\n"
               "L:\n"
               "  %x = call i32 @lane_id()\n"
               "  jmp L\n"
               "}\n",
               &r, false);
  CHECK(r.fault.happened);
  CHECK_STR_CONTAINS(r.fault.message, "step budget of 50 instructions per thread exceeded");
  CHECK_STR_CONTAINS(r.fault.message, "thread 0 (wave 0, lane 0)");
  run_free(&r, m);
  /* out of bounds, named with the buffer */
  m = run_wave(&d,
               "wave kernel @w(ptr %out) !run \"--global 8 --wave 8 --arg out=i32[4]\" {\n"
               "entry:\n"
               "  %tid = call i32 @global_id(i32 0)\n"
               "  %o = gep %out, i32 %tid, 4\n"
               "  store i32 1, %o\n"
               "  ret\n"
               "}\n",
               &r, false);
  CHECK(r.fault.happened);
  CHECK_STR_CONTAINS(r.fault.message, "thread 4 (wave 0, lane 4): out-of-bounds store of 4 bytes");
  CHECK_STR_CONTAINS(r.fault.message, "buffer %out");
  run_free(&r, m);
}

TEST(lanes_past_the_launch_do_not_exist) {
  test_diags d;
  test_diags_init(&d);
  run r;
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 6 --wave 4 --arg out=i32[N]\" {\n"
                          "entry:\n"
                          "  %tid = call i32 @global_id(i32 0)\n"
                          "  %o = gep %out, i32 %tid, 4\n"
                          "  %e = exec\n"
                          "  %all = or mask %e, 0xffffffffffffffff\n"
                          "  setexec %all\n"
                          "  %e2 = exec\n"
                          "  %is3 = icmp eq mask %e2, 0x3\n"
                          "  %isf = icmp eq mask %e2, 0xf\n"
                          "  %v = select i32 %is3, 3, 0\n"
                          "  %w = select i32 %isf, 15, %v\n"
                          "  store i32 %w, %o\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK_EQ_INT(r.rc, 0);
  /* setexec never turns on lanes that have no thread: wave 1 has lanes 0 and 1 only */
  for (uint32_t t = 0; r.rc == 0 && t < 6; t++) CHECK_EQ_INT(out_elem(&r, t), t < 4 ? 15 : 3);
  CHECK_EQ_INT(r.st.waves, 2);
  run_free(&r, m);
}

TEST(barrier_with_inactive_lanes_is_a_fault) {
  test_diags d;
  test_diags_init(&d);
  run r;
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                          "entry:\n"
                          "  %lane = call i32 @lane_id()\n"
                          "  call void @barrier()\n"
                          "  %c = icmp eq i32 %lane, 0\n"
                          "  %b = ballot %c\n"
                          "  setexec %b\n"
                          "  call void @barrier()\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK(r.fault.happened);
  CHECK_STR_CONTAINS(r.fault.message, "barrier in divergent control flow");
  run_free(&r, m);
}

TEST(refuses_thread_level_kernels) {
  test_diags d;
  test_diags_init(&d);
  run r;
  rc_module *m = run_wave(&d,
                          "kernel @t(ptr %out) !run \"--global 4 --arg out=i32[N]\" {\n"
                          "entry:\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK(r.rc != 0 && !r.fault.happened);
  CHECK_STR_CONTAINS(d.text, "thread-level kernel; the wave simulator runs wave-level kernels");
  run_free(&r, m);
}

TEST(duplicate_block_executions) {
  test_diags d;
  test_diags_init(&d);
  run r;
  /* B runs twice per wave, for lanes 0-1 and then for lanes 2-3 (C switches them): each lane once,
   * one duplicate per wave; X is entered with no lane at all: one more */
  rc_module *m = run_wave(&d,
                          "wave kernel @w(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                          "  reg scalar mask $m\n"
                          "entry:\n"
                          "  %lane = call i32 @lane_id()\n"
                          "  %c = icmp ult i32 %lane, 2\n"
                          "  %e = exec\n"
                          "  %b = ballot %c\n"
                          "  %rest = andn mask %e, %b\n"
                          "  rset $m, %rest\n"
                          "  setexec %b\n"
                          "  jmp B\n"
                          "B:\n"
                          "  %x = add i32 %lane, 1\n"
                          "  jmp C\n"
                          "C:\n"
                          "  %pend = rget $m\n"
                          "  rset $m, 0x0\n"
                          "  setexec %pend\n"
                          "  brexecz X, B\n"
                          "X:\n"
                          "  ret\n"
                          "}\n",
                          &r, false);
  CHECK_EQ_INT(r.rc, 0);
  const rc_kernel *k = m->kernels[0];
  uint32_t b = rc_kernel_find_block(k, "B")->id, c = rc_kernel_find_block(k, "C")->id;
  uint32_t x = rc_kernel_find_block(k, "X")->id;
  CHECK_EQ_INT(r.st.block_entries[b], 4);
  CHECK_EQ_INT(r.st.block_duplicates[b], 2);
  CHECK_EQ_INT(r.st.block_duplicates[c], 0); /* lanes 2 and 3 were active in both of C's runs */
  CHECK_EQ_INT(r.st.block_duplicates[x], 2);
  CHECK_EQ_INT(r.st.duplicate_blocks, 4);
  run_free(&r, m);
}

TEST(timeline_records_one_wave_and_draws_it) {
  test_diags d;
  test_diags_init(&d);
  run r;
  const char *text = "wave kernel @w(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                     "entry:\n"
                     "  %lane = call i32 @lane_id()\n"
                     "  %c = icmp ult i32 %lane, 1\n"
                     "  %b = ballot %c\n"
                     "  setexec %b\n"
                     "  jmp Second\n"
                     "Second:\n"
                     "  %x = add i32 %lane, 1\n"
                     "  ret\n"
                     "}\n";
  memset(&r.tl, 0, sizeof r.tl);
  rc_module *m = test_parse(&d, text);
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, k) == 0);
  rc_memory mem = {0};
  rc_timeline tl;
  memset(&tl, 0, sizeof tl);
  tl.wave = 1;
  CHECK(rc_memory_init(&d.ctx, &mem, &s, k) == 0);
  CHECK(rc_wave_run(&d.ctx, k, &s, &mem, NULL, NULL, NULL, &tl) == 0);
  CHECK(tl.recorded && !tl.truncated);
  CHECK_EQ_INT(tl.lanes, 4);
  CHECK_EQ_INT(tl.first_thread, 4);
  /* 3 in entry (the ballot issues nothing, the jmp falls through to Second), 2 in Second */
  CHECK_EQ_INT(tl.nevents, 5);
  if (tl.nevents == 5) {
    CHECK(tl.events[0].block_start && tl.events[3].block_start && !tl.events[1].block_start);
    CHECK_EQ_INT(tl.events[0].kind, RC_ISSUE_VECTOR);
    CHECK_EQ_INT(tl.events[2].kind, RC_ISSUE_MASK);   /* setexec */
    CHECK_EQ_INT(tl.events[4].kind, RC_ISSUE_SCALAR); /* ret */
    CHECK_EQ_INT(tl.events[3].exec, 0x1);             /* only lane 0 in Second */
    CHECK_EQ_INT(tl.events[0].exec, 0xf);
  }
  rc_strbuf svg;
  rc_sb_init(&svg);
  rc_timeline_svg(&tl, k, "wave 1 <of> @w", &svg);
  CHECK_STR_CONTAINS(svg.data, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  CHECK_STR_CONTAINS(svg.data, ">Second</text>");
  CHECK_STR_CONTAINS(svg.data, "wave 1 &lt;of&gt; @w");
  CHECK_STR_CONTAINS(svg.data, "fill=\"#2f6fd0\""); /* active lanes */
  CHECK_STR_CONTAINS(svg.data, "fill=\"#e6e9ef\""); /* inactive lanes */
  CHECK_STR_CONTAINS(svg.data, "</svg>");
  rc_sb_free(&svg);
  rc_timeline_free(&tl);
  /* a wave that does not exist is not recorded */
  rc_memory_free(&mem);
  memset(&tl, 0, sizeof tl);
  tl.wave = 7;
  CHECK(rc_memory_init(&d.ctx, &mem, &s, k) == 0);
  CHECK(rc_wave_run(&d.ctx, k, &s, &mem, NULL, NULL, NULL, &tl) == 0);
  CHECK(!tl.recorded && tl.nevents == 0);
  rc_timeline_free(&tl);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
}
