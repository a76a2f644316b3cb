/* The native wave backend (src/native/wave_*.c, docs/native.md "Wave kernels on the host's vector
 * unit") on hand-written wave kernels, each a piece of docs/ir.md's "Wave level" semantics: every
 * kernel runs on the wave simulator and natively at several wave sizes, and the memory must be the
 * same (the simulator is the reference; some tests also check values the semantics fix); faults
 * must carry the simulator's message word for word. Also: the refusals, the written module, worker
 * threads and the timing fields. */
#include "test.h"

#ifdef RECONV_HAVE_LLVM

#include "reconv/native_wave.h"
#include "reconv/sim.h"

#include <stdlib.h>

typedef struct both {
  test_diags d;
  rc_module *m;
  rc_kernel *k;
  rc_run_spec s;
  rc_memory sim, nat;
  rc_fault sim_fault, nat_fault;
  int sim_rc, nat_rc;
  rc_native_timing timing;
} both;

/* Run the first kernel of text with its !run spec at wave size W on the simulator and natively
 * (W = 0: the spec's own). */
static bool run_both(both *b, const char *text, uint32_t W, uint32_t threads, bool drop_merges) {
  memset(b, 0, sizeof *b);
  test_diags_init(&b->d);
  b->m = test_parse(&b->d, text);
  if (!b->m) {
    fprintf(stderr, "%s", b->d.text);
    return false;
  }
  b->k = b->m->kernels[0];
  rc_run_spec_init(&b->s);
  if (rc_run_spec_parse_kernel(&b->d.ctx, &b->s, b->k) != 0) return false;
  if (W) b->s.wave = W;
  b->sim_rc = rc_memory_init(&b->d.ctx, &b->sim, &b->s, b->k);
  if (b->sim_rc == 0) b->sim_rc = rc_wave_run(&b->d.ctx, b->k, &b->s, &b->sim, NULL, NULL, &b->sim_fault, NULL);
  rc_native_wave_opts o = {.wave = b->s.wave, .drop_merges = drop_merges};
  rc_native_wave *n = rc_native_wave_open(&b->d.ctx, b->k, &o);
  if (!n) {
    fprintf(stderr, "%s", b->d.text);
    return false;
  }
  b->timing.threads = threads;
  b->timing.repeat = 1;
  b->nat_rc = rc_memory_init(&b->d.ctx, &b->nat, &b->s, b->k);
  if (b->nat_rc == 0) b->nat_rc = rc_native_wave_run(n, &b->s, &b->nat, &b->timing, &b->nat_fault);
  rc_native_wave_close(n);
  return true;
}

static void both_free(both *b) {
  rc_memory_free(&b->sim);
  rc_memory_free(&b->nat);
  rc_run_spec_free(&b->s);
  if (b->m) rc_module_free(b->m);
}

/* Both machines ran and left the same memory, at each of the wave sizes. */
static void check_same(const char *text, const uint32_t *waves, unsigned nwaves) {
  for (unsigned i = 0; i < nwaves; i++) {
    both b;
    CHECK(run_both(&b, text, waves[i], 1, false));
    char why[600] = "";
    if (b.sim_rc != 0) fprintf(stderr, "simulator: %s\n", b.sim_fault.message);
    if (b.nat_rc != 0) fprintf(stderr, "native, W=%u: %s\n%s", waves[i], b.nat_fault.message, b.d.text);
    CHECK_EQ_INT(b.sim_rc, 0);
    CHECK_EQ_INT(b.nat_rc, 0);
    bool same = b.sim_rc == 0 && b.nat_rc == 0 && rc_memory_equal(&b.sim, &b.nat, why, sizeof why);
    if (!same) fprintf(stderr, "W=%u: %s\n", waves[i], why);
    CHECK(same);
    both_free(&b);
  }
}

static const uint32_t all_waves[] = {4, 8, 16, 32, 64};

static int32_t elem32(const rc_memory *m, uint32_t buf, uint32_t i) {
  int32_t v;
  memcpy(&v, m->bufs[buf].data + 4 * i, 4);
  return v;
}

TEST(exec_ballot_registers_and_brexecz) {
  check_same("wave kernel @w(ptr %out) !run \"--global 20 --wave 4 --arg out=i32[N]\" {\n"
             "  reg vector i32 $v\n"
             "  reg scalar i32 $s\n"
             "  reg scalar mask $m\n"
             "entry:\n"
             "  %id = call i32 @global_id(i32 0)\n"
             "  %odd = and i32 %id, 1\n"
             "  %c = icmp ne i32 %odd, 0\n"
             "  %b = ballot %c\n"
             "  rset $m, %b\n"
             "  rset $v, %id\n"
             "  setexec %b\n"
             "  %t = mul i32 %id, 100\n"
             "  rset $v, %t\n"
             "  rset $s, 7 !scalar\n"
             "  brexecz done, more\n"
             "more:\n"
             "  %e = exec\n"
             "  %n = call i32 @ctpop(i32 %id)\n"
             "  rset $v, %n\n"
             "  jmp done\n"
             "done:\n"
             "  %all = exec\n"
             "  %w = rget $m\n"
             "  %j = or mask %all, %w\n"
             "  setexec 0xffffffffffffffff\n"
             "  %r = rget $v\n"
             "  %sv = rget $s\n"
             "  %x = add i32 %r, %sv\n"
             "  %p = gep ptr %out, i32 %id, 4\n"
             "  store i32 %x, ptr %p\n"
             "  ret\n"
             "}\n",
             all_waves, 5);
}

/* Temporal divergence: a loop whose lanes leave at different iterations, and a value computed in
 * the loop that each lane reads after it, from the iteration it left in. Only the merge under exec
 * keeps the early lanes' values; without it (drop_merges) the run differs. */
static const char temporal[] =
    "wave kernel @t(ptr %out) !run \"--global 40 --wave 8 --arg out=i32[N]\" {\n"
    "  reg vector i32 $i\n"
    "  reg scalar mask $m.exit\n"
    "entry:\n"
    "  %id = call i32 @global_id(i32 0)\n"
    "  %lim = and i32 %id, 7\n"
    "  rset $m.exit, 0x0\n"
    "  rset $i, 0\n"
    "  jmp loop\n"
    "loop:\n"
    "  %i = rget $i\n"
    "  %sq = mul i32 %i, %i\n"
    "  %v = add i32 %sq, %id\n"
    "  %i1 = add i32 %i, 1\n"
    "  rset $i, %i1\n"
    "  %more = icmp slt i32 %i, %lim\n"
    "  %go = ballot %more\n"
    "  %ex = exec\n"
    "  %leave = andn mask %ex, %go\n"
    "  %old = rget $m.exit\n"
    "  %acc = or mask %old, %leave\n"
    "  rset $m.exit, %acc\n"
    "  setexec %go\n"
    "  brexecz exit, loop\n"
    "exit:\n"
    "  %w = rget $m.exit\n"
    "  %e2 = exec\n"
    "  %j = or mask %e2, %w\n"
    "  setexec %j\n"
    "  %p = gep ptr %out, i32 %id, 4\n"
    "  store i32 %v, ptr %p\n"
    "  ret\n"
    "}\n";

TEST(values_computed_in_a_loop_keep_the_lanes_that_left_it) {
  check_same(temporal, all_waves, 5);
  both b;
  CHECK(run_both(&b, temporal, 16, 1, false));
  for (uint32_t id = 0; id < 40 && b.nat_rc == 0; id++) {
    int32_t lim = (int32_t)(id & 7);
    CHECK_EQ_INT(elem32(&b.nat, 0, id), lim * lim + (int32_t)id);
  }
  both_free(&b);
  CHECK(run_both(&b, temporal, 16, 1, true));
  char why[400];
  CHECK(b.nat_rc != 0 || !rc_memory_equal(&b.sim, &b.nat, why, sizeof why));
  both_free(&b);
}

TEST(memory_forms_uniform_consecutive_and_per_lane) {
  /* a uniform-address store keeps the highest active lane's value; overlapping scattered stores land
   * in lane order; consecutive loads and stores at the end of a buffer the last wave only partly
   * covers (the lanes that do not exist must not fault); an i1 stored as a byte and read from a
   * byte that is not 0 or 1; an i33 in 5 bytes; a gather */
  check_same("wave kernel @m(ptr %in, ptr %out, ptr %flags, ptr %wide) "
             "!run \"--global 37 --local 37 --wave 4 --arg in=i32[N]:seq(3,5) --arg out=i32[N] --arg flags=i8[N]:seq(0,1) --arg wide=i64[N]\" {\n"
             "entry:\n"
             "  %id = call i32 @global_id(i32 0)\n"
             "  %pi = gep ptr %in, i32 %id, 4\n"
             "  %x = load i32, ptr %pi\n"
             "  %po = gep ptr %out, i32 %id, 4\n"
             "  store i32 %x, ptr %po\n"
             "  %half = lshr i32 %id, 1\n"
             "  %ph = gep ptr %out, i32 %half, 4\n"
             "  %y = add i32 %x, 1000\n"
             "  store i32 %y, ptr %ph\n"
             "  store i32 %id, ptr %out\n"
             "  %rev = sub i32 36, %id\n"
             "  %pr = gep ptr %in, i32 %rev, 4\n"
             "  %z = load i32, ptr %pr\n"
             "  %pf = gep ptr %flags, i32 %id, 1\n"
             "  %f = load i1, ptr %pf\n"
             "  %fz = zext i1 %f to i32\n"
             "  %s = add i32 %z, %fz\n"
             "  %c = icmp sgt i32 %s, 50\n"
             "  store i1 %c, ptr %pf\n"
             "  %pw = gep ptr %wide, i32 %id, 8\n"
             "  %big = sext i32 %s to i33\n"
             "  %neg = sub i33 0, %big\n"
             "  store i33 %neg, ptr %pw\n"
             "  ret\n"
             "}\n",
             all_waves, 5);
}

TEST(division_by_zero_in_an_inactive_lane_does_not_fault) {
  /* lanes whose divisor is 0 (or INT_MIN / -1) are masked off before the division; the others
   * divide, signed and unsigned, and take remainders */
  check_same("wave kernel @d(ptr %out) !run \"--global 64 --wave 16 --arg out=i32[N]\" {\n"
             "entry:\n"
             "  %id = call i32 @global_id(i32 0)\n"
             "  %m = and i32 %id, 3\n"
             "  %k = sub i32 %m, 1\n"
             "  %ok = icmp ne i32 %k, 0\n"
             "  %b = ballot %ok\n"
             "  %min = select i32 %ok, -2147483648, 7\n"
             "  %ne1 = icmp ne i32 %k, -1\n"
             "  %b2 = ballot %ne1\n"
             "  %both = and mask %b, %b2\n"
             "  setexec %both\n"
             "  %q = sdiv i32 %min, %k\n"
             "  %r = srem i32 %id, %k\n"
             "  %u = udiv i32 %id, %k\n"
             "  %ur = urem i32 %id, %k\n"
             "  %s1 = add i32 %q, %r\n"
             "  %s2 = add i32 %u, %ur\n"
             "  %s = xor i32 %s1, %s2\n"
             "  %p = gep ptr %out, i32 %id, 4\n"
             "  store i32 %s, ptr %p\n"
             "  ret\n"
             "}\n",
             all_waves, 5);
}

TEST(shifts_conversions_and_halves) {
  check_same("wave kernel @c(ptr %out, ptr %fo, ptr %ho) "
             "!run \"--global 32 --wave 8 --arg out=i32[N] --arg fo=f32[N] --arg ho=f16[N]\" {\n"
             "entry:\n"
             "  %id = call i32 @global_id(i32 0)\n"
             "  %sh = shl i32 %id, %id\n"           /* shift amounts modulo 32 */
             "  %sr = ashr i32 -1000, %id\n"
             "  %a = xor i32 %sh, %sr\n"
             "  %f = sitofp i32 %id to f32\n"
             "  %g = fmul f32 %f, 1.0e10\n"
             "  %nan = fsub f32 %g, %g\n"           /* inf - inf: NaN for id > 3 */
             "  %big = fmul f32 %g, %g\n"
             "  %i1 = fptosi f32 %big to i32\n"     /* saturates */
             "  %i2 = fptoui f32 %nan to i32\n"     /* NaN gives 0 */
             "  %t = add i32 %a, %i1\n"
             "  %t2 = add i32 %t, %i2\n"
             "  %p = gep ptr %out, i32 %id, 4\n"
             "  store i32 %t2, ptr %p\n"
             "  %h = fptrunc f32 %f to f16\n"
             "  %h3 = fdiv f16 %h, 3.0\n"
             "  %h2 = fmul f16 %h3, %h3\n"
             "  %r = call f32 @sqrt(f32 %f)\n"
             "  %rs = call f32 @sin(f32 %f)\n"
             "  %rr = fadd f32 %r, %rs\n"
             "  %pf = gep ptr %fo, i32 %id, 4\n"
             "  store f32 %rr, ptr %pf\n"
             "  %ph = gep ptr %ho, i32 %id, 2\n"
             "  store f16 %h2, ptr %ph\n"
             "  ret\n"
             "}\n",
             all_waves, 5);
}

TEST(atomics_run_lane_by_lane_in_lane_order) {
  both b;
  const char *text = "wave kernel @a(ptr %ctr, ptr %out) !run \"--global 48 --wave 16 --arg ctr=i32[1] --arg out=i32[N]\" {\n"
                     "entry:\n"
                     "  %id = call i32 @global_id(i32 0)\n"
                     "  %odd = and i32 %id, 1\n"
                     "  %c = icmp ne i32 %odd, 0\n"
                     "  %b = ballot %c\n"
                     "  setexec %b\n"
                     "  %old = call i32 @atomic_add(ptr %ctr, i32 %id)\n"
                     "  %p = gep ptr %out, i32 %id, 4\n"
                     "  store i32 %old, ptr %p\n"
                     "  ret\n"
                     "}\n";
  check_same(text, all_waves, 5);
  CHECK(run_both(&b, text, 16, 1, false));
  /* lane order: lane 1 (id 1) first, then id 3 ... */
  CHECK_EQ_INT(elem32(&b.nat, 1, 1), 0);
  CHECK_EQ_INT(elem32(&b.nat, 1, 3), 1);
  CHECK_EQ_INT(elem32(&b.nat, 1, 5), 4);
  both_free(&b);
}

TEST(barriers_local_memory_private_memory_and_two_dimensions) {
  /* waves of a group exchange values through local memory across a barrier; each lane has its own
   * private array; a 2-d launch whose rows are not multiples of the wave (lanes not consecutive in
   * x) */
  check_same("wave kernel @b(ptr %out) !run \"--global 12,6 --local 6,3 --wave 4 --arg out=i32[N]\" {\n"
             "entry:\n"
             "  %x = call i32 @local_id(i32 0)\n"
             "  %y = call i32 @local_id(i32 1)\n"
             "  %gx = call i32 @global_id(i32 0)\n"
             "  %gy = call i32 @global_id(i32 1)\n"
             "  %row = mul i32 %y, 6\n"
             "  %l = add i32 %row, %x\n"
             "  %lm = localmem 72 !scalar\n"
             "  %pl = gep ptr %lm, i32 %l, 4\n"
             "  %v = mul i32 %gx, %gy\n"
             "  store i32 %v, ptr %pl\n"
             "  %arr = alloca 16\n"
             "  %pa = gep ptr %arr, i32 %x, 0\n"
             "  store i32 %l, ptr %arr\n"
             "  call void @barrier()\n"
             "  %o = sub i32 17, %l\n"
             "  %po = gep ptr %lm, i32 %o, 4\n"
             "  %w = load i32, ptr %po\n"
             "  %mine = load i32, ptr %pa\n"
             "  %s = add i32 %w, %mine\n"
             "  %gw = call i32 @global_size(i32 0)\n"
             "  %grow = mul i32 %gy, %gw\n"
             "  %gi = add i32 %grow, %gx\n"
             "  %pg = gep ptr %out, i32 %gi, 4\n"
             "  store i32 %s, ptr %pg\n"
             "  ret\n"
             "}\n",
             all_waves, 5);
}

TEST(builtins_of_the_long_tail_and_module_globals) {
  check_same("global @table : [4 x i32], addrspace(4), constant = \"0a000000140000001e00000028000000\"\n"
             "wave kernel @t(ptr %out, ptr %fo) !run \"--global 24 --wave 8 --arg out=i32[N] --arg fo=f32[N]\" {\n"
             "entry:\n"
             "  %id = call i32 @global_id(i32 0)\n"
             "  %i = and i32 %id, 3\n"
             "  %pt = gep ptr addrspace(4) @table, i32 %i, 4\n"
             "  %t = load i32, ptr addrspace(4) %pt\n"
             "  %h = call i32 @mul_hi_s(i32 %id, i32 -7)\n"
             "  %c = call i32 @clamp_s(i32 %id, i32 3, i32 17)\n"
             "  %z = call i32 @clz(i32 %id)\n"
             "  %a = add i32 %t, %h\n"
             "  %b = add i32 %a, %c\n"
             "  %s = add i32 %b, %z\n"
             "  %p = gep ptr %out, i32 %id, 4\n"
             "  store i32 %s, ptr %p\n"
             "  %f = uitofp i32 %id to f32\n"
             "  %e = call f32 @atan2(f32 %f, f32 3.0)\n"
             "  %m = call f32 @fmax(f32 %e, f32 0.5)\n"
             "  %pf = gep ptr %fo, i32 %id, 4\n"
             "  store f32 %m, ptr %pf\n"
             "  ret\n"
             "}\n",
             all_waves, 5);
}

/* A fault's message names the same kernel, block, instruction, thread and lane as the simulator's. */
static void check_same_fault(const char *text, const char *needle) {
  both b;
  CHECK(run_both(&b, text, 0, 1, false));
  CHECK(b.sim_rc != 0 && b.sim_fault.happened);
  CHECK(b.nat_rc != 0 && b.nat_fault.happened);
  CHECK_STR_CONTAINS(b.nat_fault.message, needle);
  if (strcmp(b.sim_fault.message, b.nat_fault.message) != 0)
    fprintf(stderr, "simulator: %s\nnative:    %s\n", b.sim_fault.message, b.nat_fault.message);
  CHECK(strcmp(b.sim_fault.message, b.nat_fault.message) == 0);
  both_free(&b);
}

TEST(faults_carry_the_simulators_messages) {
  check_same_fault("wave kernel @z(ptr %out) !run \"--global 32 --wave 8 --arg out=i32[N]\" {\n"
                   "entry:\n"
                   "  %id = call i32 @global_id(i32 0)\n"
                   "  %k = sub i32 %id, 13\n"
                   "  %q = sdiv i32 100, %k\n"
                   "  %p = gep ptr %out, i32 %id, 4\n"
                   "  store i32 %q, ptr %p\n"
                   "  ret\n"
                   "}\n",
                   "thread 13 (wave 1, lane 5): division by zero");
  check_same_fault("wave kernel @u(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                   "entry:\n"
                   "  unreachable\n"
                   "}\n",
                   "unreachable executed");
  check_same_fault("wave kernel @claim(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                   "entry:\n"
                   "  %lane = call i32 @lane_id()\n"
                   "  %c = icmp ult i32 %lane, 2\n"
                   "  br %c, A, B !uniform\n"
                   "A:\n"
                   "  ret\n"
                   "B:\n"
                   "  ret\n"
                   "}\n",
                   "the branch is not uniform");
  check_same_fault("wave kernel @bar(ptr %out) !run \"--global 8 --wave 4 --arg out=i32[N]\" {\n"
                   "entry:\n"
                   "  %lane = call i32 @lane_id()\n"
                   "  %c = icmp ult i32 %lane, 2\n"
                   "  %b = ballot %c\n"
                   "  setexec %b\n"
                   "  call void @barrier()\n"
                   "  ret\n"
                   "}\n",
                   "barrier in divergent control flow");
  check_same_fault("wave kernel @ret(ptr %out) !run \"--global 8 --local 8 --wave 4 --arg out=i32[N]\" {\n"
                   "entry:\n"
                   "  %w = call i32 @local_id(i32 0)\n"
                   "  %first = call i32 @readfirstlane(i32 %w)\n"
                   "  %f = icmp ult i32 %first, 4\n"
                   "  br %f, early, wait\n"
                   "early:\n"
                   "  ret\n"
                   "wait:\n"
                   "  call void @barrier()\n"
                   "  ret\n"
                   "}\n",
                   "barrier divergence");
}

TEST(vector_math_through_libmvec_within_opencl_bounds) {
  /* sin and pow through glibc's vector math library: each result checked in place against the
   * interpreter's function (check_math), within OpenCL 1.2's bound; the module calls libmvec */
  const char *text = "wave kernel @vm(ptr %out) !run \"--global 48 --wave 16 --arg out=f32[N]\" {\n"
                     "entry:\n"
                     "  %id = call i32 @global_id(i32 0)\n"
                     "  %f = sitofp i32 %id to f32\n"
                     "  %x = fmul f32 %f, 0.37\n"
                     "  %s = call f32 @sin(f32 %x)\n"
                     "  %p = call f32 @pow(f32 %x, f32 1.5)\n"
                     "  %r = fadd f32 %s, %p\n"
                     "  %q = gep ptr %out, i32 %id, 4\n"
                     "  store f32 %r, ptr %q\n"
                     "  ret\n"
                     "}\n";
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, text);
  CHECK(m != NULL);
  if (!m) return;
  rc_native_wave_opts o = {.wave = 16, .vector_math = true, .check_math = true};
  rc_native_wave *n = rc_native_wave_open(&d.ctx, m->kernels[0], &o);
  CHECK(n != NULL);
  if (!n) {
    fprintf(stderr, "%s", d.text);
    rc_module_free(m);
    return;
  }
  CHECK_EQ_INT(rc_native_wave_math_ulps(n), 16); /* pow's bound */
  char *ir = NULL;
  size_t len = 0;
  CHECK(rc_native_wave_emit(n, RC_NATIVE_LL, &ir, &len) == 0);
  CHECK_STR_CONTAINS(ir, "v_sinf");
  CHECK_STR_CONTAINS(ir, "vv_powf");
  free(ir);
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, m->kernels[0]) == 0);
  rc_memory ref = {0}, mem = {0};
  rc_fault f1 = {0}, f2 = {0};
  CHECK(rc_memory_init(&d.ctx, &ref, &s, m->kernels[0]) == 0 &&
        rc_wave_run(&d.ctx, m->kernels[0], &s, &ref, NULL, NULL, &f1, NULL) == 0);
  rc_native_timing t = {.repeat = 0};
  CHECK(rc_memory_init(&d.ctx, &mem, &s, m->kernels[0]) == 0 && rc_native_wave_run(n, &s, &mem, &t, &f2) == 0);
  if (f2.happened) fprintf(stderr, "%s\n", f2.message);
  CHECK(t.math_ulps <= 16);
  uint64_t far = 0;
  char why[300];
  CHECK(rc_memory_equal_ulps(&ref, &mem, 64, &far, why, sizeof why));
  rc_memory_free(&ref);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_native_wave_close(n);
  rc_module_free(m);
}

TEST(worker_threads_and_timing) {
  both b;
  CHECK(run_both(&b, temporal, 8, 3, false));
  char why[400];
  CHECK_EQ_INT(b.nat_rc, 0);
  CHECK(b.nat_rc == 0 && rc_memory_equal(&b.sim, &b.nat, why, sizeof why));
  CHECK(b.timing.first_ns > 0 && b.timing.best_ns > 0 && b.timing.best_ns <= b.timing.first_ns);
  both_free(&b);
}

TEST(refusals_are_clear_messages) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "kernel @k(ptr %out) {\nentry:\n  ret\n}\nwave kernel @w(ptr %out) {\nentry:\n  ret\n}\n");
  CHECK(m != NULL);
  rc_native_wave_opts o = {.wave = 16};
  CHECK(rc_native_wave_open(&d.ctx, m->kernels[0], &o) == NULL);
  CHECK_STR_CONTAINS(d.text, "is a thread-level kernel; the native wave backend runs wave kernels");
  o.wave = 12;
  CHECK(rc_native_wave_open(&d.ctx, m->kernels[1], &o) == NULL);
  CHECK_STR_CONTAINS(d.text, "waves of 4, 8, 16, 32 or 64 lanes, not 12");
  o.wave = 8;
  rc_native_wave *n = rc_native_wave_open(&d.ctx, m->kernels[1], &o);
  CHECK(n != NULL);
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK(rc_run_spec_parse_string(&d.ctx, &s, "--global 8 --wave 4 --arg out=i32[8]") == 0);
  rc_memory mem = {0};
  rc_fault fault;
  CHECK(rc_memory_init(&d.ctx, &mem, &s, m->kernels[1]) == 0);
  CHECK(rc_native_wave_run(n, &s, &mem, NULL, &fault) != 0 && !fault.happened);
  CHECK_STR_CONTAINS(d.text, "compiled for waves of 8 lanes; the run specification says --wave 4");
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  /* the written module defines the kernel's descriptor; the object file is an ELF one */
  char *data = NULL;
  size_t len = 0;
  CHECK(rc_native_wave_emit(n, RC_NATIVE_LL, &data, &len) == 0);
  CHECK_STR_CONTAINS(data, "@reconv_wave_w = ");
  free(data);
  CHECK(rc_native_wave_emit(n, RC_NATIVE_OBJ, &data, &len) == 0);
  CHECK(len > 4 && memcmp(data, "\177ELF", 4) == 0);
  free(data);
  CHECK_EQ_INT(rc_native_format_of("k.o"), RC_NATIVE_OBJ);
  CHECK_EQ_INT(rc_native_format_of("k.rir"), -1);
  rc_native_wave_close(n);
  rc_module_free(m);
}

#else
TEST(native_wave_backend_needs_llvm) {
  printf("reconv was built without the LLVM bridge: the native wave backend is not there\n");
}
#endif
