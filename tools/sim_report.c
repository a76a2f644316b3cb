/* Reporting a run of `reconv sim` (sim_report.h): text and JSON. */
#include "sim_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static double ratio(uint64_t active, uint64_t vector, uint32_t w) {
  return vector ? (double)active / ((double)vector * w) : 0.0;
}

static void buffers_text(FILE *f, const rc_exec_result *res) {
  for (uint32_t i = 0; i < res->mem.nbufs; i++) {
    const rc_buffer *b = &res->mem.bufs[i];
    fprintf(f, "buffer %%%s %s[%" PRIu64 "] checksum 0x%016" PRIx64 "\n", b->param, rc_type_name(b->elem),
            b->count, rc_buffer_checksum(b));
  }
}

/* A native run: the time, no issue counts (the host issued what LLVM generated). */
static void native_text(FILE *f, const rc_exec_result *res, const rc_run_spec *s) {
  uint64_t n = rc_run_spec_threads(s);
  fprintf(f, "kernel @%s on the native wave backend (%s): %" PRIu64 " threads in waves of %u lanes\n",
          res->orig->name, res->native_target, n, s->wave);
  if (res->pipeline) {
    uint32_t nb = rc_count_blocks(res->ran, 0), nf = rc_count_blocks(res->ran, RC_BLOCK_FLOW);
    fprintf(f, "  lowered with %s: %u block%s, %u flow block%s\n", res->pipeline, nb, nb == 1 ? "" : "s", nf,
            nf == 1 ? "" : "s");
  }
  fprintf(f, "  time (first run)           %.3f us\n", (double)res->native_first_ns * 1e-3);
  fprintf(f, "  time (best of runs)        %.3f us, %.2f ns per work-item\n", (double)res->native_best_ns * 1e-3,
          n ? (double)res->native_best_ns / (double)n : 0.0);
  buffers_text(f, res);
  if (res->checked && res->equivalent && res->native_math_ulps)
    fprintf(f, "check: equivalent to the thread-level interpreter (%" PRIu64 " threads: memory; the vector math "
               "library's results checked against the interpreter's functions, each within OpenCL 1.2's bound "
               "(section 7.4): %" PRIu64 " ulp at most; floats computed from them %" PRIu64 " ulp apart at most)\n",
            n, res->native_max_ulps, res->native_float_ulps);
  else if (res->checked && res->equivalent)
    fprintf(f, "check: equivalent to the thread-level interpreter (%" PRIu64 " threads: memory)\n", n);
  else if (res->checked)
    fprintf(f, "check: NOT equivalent to the thread-level interpreter: %s\n", res->why);
}

void sim_report_text(FILE *f, const rc_exec_result *res, const rc_run_spec *s) {
  const rc_run_stats *st = &res->stats;
  const rc_kernel *k = res->ran;
  if (res->native) {
    native_text(f, res, s);
    return;
  }
  if (res->mode == RC_MACHINE_THREAD) {
    fprintf(f, "kernel @%s on the thread-level interpreter: %" PRIu64 " threads\n", res->orig->name, st->threads);
    fprintf(f, "  instructions               %" PRIu64 "\n  blocks entered             %" PRIu64 "\n",
            st->instructions, st->blocks);
  } else {
    fprintf(f, "kernel @%s on the %s: %" PRIu64 " threads in %" PRIu64 " wave%s of %u lanes\n",
            res->orig->name, res->mode == RC_MACHINE_IPDOM ? "IPDOM-stack model" : "wave simulator", st->threads,
            st->waves, st->waves == 1 ? "" : "s", st->wave_size);
    if (res->pipeline && res->mode == RC_MACHINE_IPDOM) {
      uint32_t nb = rc_count_blocks(k, 0), ng = rc_count_blocks(k, RC_BLOCK_GUARD);
      fprintf(f, "  transformed with %s: %u block%s, %u guard block%s\n", res->pipeline, nb, nb == 1 ? "" : "s", ng,
              ng == 1 ? "" : "s");
    } else if (res->pipeline) {
      uint32_t nb = rc_count_blocks(k, 0), nf = rc_count_blocks(k, RC_BLOCK_FLOW);
      fprintf(f, "  lowered with %s: %u block%s, %u flow block%s\n", res->pipeline, nb, nb == 1 ? "" : "s", nf,
              nf == 1 ? "" : "s");
    }
    fprintf(f, "  vector instructions        %" PRIu64 "\n", st->vector_instrs);
    fprintf(f, "  scalar instructions        %" PRIu64 "\n", st->scalar_instrs);
    fprintf(f, "  mask instructions          %" PRIu64 "\n", st->mask_instrs);
    fprintf(f, "  active lane-instructions   %" PRIu64 "\n", st->active_lane_instrs);
    fprintf(f, "  SIMD efficiency            %.1f%%\n", 100.0 * rc_simd_efficiency(st));
    fprintf(f, "  blocks entered             %" PRIu64 "\n", st->blocks_entered);
    fprintf(f, "  duplicate block executions %" PRIu64 "\n", st->duplicate_blocks);
    if (res->mode == RC_MACHINE_IPDOM) fprintf(f, "  max stack depth            %" PRIu64 "\n", st->max_stack_depth);
  }
  buffers_text(f, res);
  /* the block column as wide as the longest name */
  int w = 14;
  for (uint32_t b = 0; b < k->nblocks; b++)
    if ((int)strlen(k->blocks[b]->name) > w) w = (int)strlen(k->blocks[b]->name);
  if (res->mode == RC_MACHINE_THREAD) {
    fprintf(f, "%-*s %9s\n", w + 2, "block", "entered");
    for (uint32_t b = 0; b < k->nblocks; b++)
      fprintf(f, "  %-*s %9" PRIu64 "\n", w, k->blocks[b]->name, st->block_entries[b]);
  } else {
    fprintf(f, "%-*s %9s %9s %9s %12s %10s %10s\n", w + 2, "block", "entered", "vector", "scalar", "active lanes",
            "efficiency", "duplicates");
    for (uint32_t b = 0; b < k->nblocks; b++)
      fprintf(f, "  %-*s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %12" PRIu64 " %9.1f%% %10" PRIu64 "\n", w,
              k->blocks[b]->name, st->block_entries[b], st->block_vector_instrs[b], st->block_scalar_instrs[b],
              st->block_active_lane_instrs[b],
              100.0 * ratio(st->block_active_lane_instrs[b], st->block_vector_instrs[b], st->wave_size),
              st->block_duplicates[b]);
  }
  if (res->checked && res->equivalent)
    fprintf(f, "check: equivalent to the thread-level interpreter (%" PRIu64 " threads: %s and memory)\n",
            rc_run_spec_threads(s), res->effects ? "effect traces" : "traces");
  else if (res->checked)
    fprintf(f, "check: NOT equivalent to the thread-level interpreter: %s\n", res->why);
}

void sim_report_json(FILE *f, const rc_exec_result *res, const rc_run_spec *s) {
  const rc_run_stats *st = &res->stats;
  const rc_kernel *k = res->ran;
  fputs("{\"kernel\": ", f);
  cli_json_string(f, res->orig->name);
  fprintf(f, ", \"mode\": \"%s\", \"threads\": %" PRIu64 ", \"wave\": %u", res->native ? "native" : rc_machine_name(res->mode),
          rc_run_spec_threads(s), s->wave);
  fputs(", \"pipeline\": ", f);
  if (res->pipeline) cli_json_string(f, res->pipeline); else fputs("null", f);
  fprintf(f, ", \"blocks\": %u, \"flow_blocks\": %u", rc_count_blocks(k, 0), rc_count_blocks(k, RC_BLOCK_FLOW));
  if (res->native) {
    uint64_t n = rc_run_spec_threads(s);
    fputs(", \"target\": ", f);
    cli_json_string(f, res->native_target);
    fprintf(f, ", \"native_ns\": %" PRIu64 ", \"native_best_ns\": %" PRIu64 ", \"native_ns_per_item\": %.4f"
               ", \"math_ulps\": %u",
            res->native_first_ns, res->native_best_ns, n ? (double)res->native_best_ns / (double)n : 0.0,
            res->native_math_ulps);
  } else if (res->mode == RC_MACHINE_THREAD) {
    fprintf(f, ", \"instructions\": %" PRIu64 ", \"blocks_entered\": %" PRIu64, st->instructions, st->blocks);
  } else {
    fprintf(f, ", \"waves\": %" PRIu64 ", \"vector_instructions\": %" PRIu64 ", \"scalar_instructions\": %" PRIu64
               ", \"mask_instructions\": %" PRIu64 ", \"active_lane_instructions\": %" PRIu64
               ", \"simd_efficiency\": %.6f, \"blocks_entered\": %" PRIu64 ", \"duplicate_blocks\": %" PRIu64
               ", \"max_stack_depth\": %" PRIu64,
            st->waves, st->vector_instrs, st->scalar_instrs, st->mask_instrs, st->active_lane_instrs,
            rc_simd_efficiency(st), st->blocks_entered, st->duplicate_blocks, st->max_stack_depth);
  }
  fprintf(f, ", \"checksum\": \"0x%016" PRIx64 "\", \"buffers\": [", rc_memory_checksum(&res->mem));
  for (uint32_t i = 0; i < res->mem.nbufs; i++) {
    const rc_buffer *b = &res->mem.bufs[i];
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    cli_json_string(f, b->param);
    fprintf(f, ", \"type\": \"%s\", \"count\": %" PRIu64 ", \"checksum\": \"0x%016" PRIx64 "\"}",
            rc_type_name(b->elem), b->count, rc_buffer_checksum(b));
  }
  fputs("], \"per_block\": [", f);
  for (uint32_t b = 0; st->block_entries && b < k->nblocks; b++) {
    fprintf(f, "%s{\"name\": ", b ? ", " : "");
    cli_json_string(f, k->blocks[b]->name);
    fprintf(f, ", \"entries\": %" PRIu64, st->block_entries[b]);
    if (res->mode != RC_MACHINE_THREAD)
      fprintf(f, ", \"vector_instructions\": %" PRIu64 ", \"scalar_instructions\": %" PRIu64
                 ", \"active_lane_instructions\": %" PRIu64 ", \"simd_efficiency\": %.6f, \"duplicates\": %" PRIu64,
              st->block_vector_instrs[b], st->block_scalar_instrs[b], st->block_active_lane_instrs[b],
              ratio(st->block_active_lane_instrs[b], st->block_vector_instrs[b], st->wave_size),
              st->block_duplicates[b]);
    fputc('}', f);
  }
  fputs("], \"check\": ", f);
  if (!res->checked) {
    fputs("null", f);
  } else {
    fprintf(f, "{\"equivalent\": %s, \"difference\": ", res->equivalent ? "true" : "false");
    if (res->equivalent) fputs("null", f); else cli_json_string(f, res->why);
    fputc('}', f);
  }
  fputs(", \"fault\": ", f);
  if (res->fault.happened) cli_json_string(f, res->fault.message); else fputs("null", f);
  fputs("}\n", f);
}
