/* Pieces every machine needs in the same form (decode.h, "shared by the machines"): parameter values,
 * whether a kernel has barriers, the wording of access faults and thread names, and handing traces
 * over in thread order. Kept in one place so that the interpreter, the wave simulator and the IPDOM
 * model report the same run the same way. */
#include "decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_param_values(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, const rc_memory *mem,
                     const rc_frame_layout *layout, sim_slot *out) {
  for (uint32_t p = 0; p < k->nparams; p++) {
    const rc_value *v = k->params[p];
    const rc_arg_spec *a = rc_run_spec_find_arg(s, v->name);
    sim_slot *o = &out[p];
    o->u = 0;
    if (a->is_local) {
      o->u = rc_addr_make(RC_SPACE_LOCAL, layout->region[p], 0);
    } else if (a->is_buffer || a->is_aggregate) { /* an aggregate: its image (run_form.c loads it) */
      const rc_buffer *b = rc_memory_find(mem, v->name);
      if (!b) return rc_error(ctx, "kernel @%s: the memory has no buffer for %%%s", k->name, v->name);
      o->u = b->base;
    } else if (rc_type_is_float((rc_type)v->type)) {
      double f = a->scalar_is_float ? a->scalar_f : (double)rc_arg_scalar_int(a, s);
      *o = sim_fput(f, (rc_type)v->type);
    } else {
      o->i = rc_int_canon((rc_type)v->type, rc_arg_scalar_int(a, s));
    }
  }
  return 0;
}

bool sim_kernel_has_barrier(const rc_kernel *k) {
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op == RC_OP_CALL && i->pred == RC_BI_BARRIER) return true;
  return false;
}

int sim_globals_init(rc_ctx *ctx, sim_globals *g, const rc_kernel *k) {
  const rc_module *m = k->mod;
  memset(g, 0, sizeof *g);
  g->n = m->nglobals;
  g->segs = rc_xcalloc(g->n + 1, sizeof *g->segs);
  g->names = rc_xcalloc(g->n + 1, sizeof *g->names);
  uint64_t total = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    const rc_global *gl = m->globals[i];
    g->names[i] = gl->v.name ? gl->v.name : "?";
    if (rc_type_addrspace((rc_type)gl->v.type) == 3) continue;
    uint64_t size = rc_type_alloc_size(m, gl->vtype);
    if (size > RC_REGION_MAX_BYTES || total + size > RC_REGION_MAX_BYTES) {
      sim_globals_free(g);
      return rc_report(ctx, RC_SEV_ERROR, m->filename, gl->line, gl->col,
                       "global @%s: %" PRIu64 " bytes of module globals exceed the simulator's %" PRIu64
                       " bytes", gl->v.name ? gl->v.name : "?", total + size, RC_REGION_MAX_BYTES);
    }
    g->segs[i].size = size;
    total += size;
  }
  g->store = rc_xcalloc(total + 1, 1);
  uint64_t at = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    const rc_global *gl = m->globals[i];
    g->segs[i].data = g->store + at;
    if (gl->init && g->segs[i].size) memcpy(g->store + at, gl->init, g->segs[i].size);
    at += g->segs[i].size;
  }
  return 0;
}

void sim_globals_map(const sim_globals *g, rc_addr_map *map) {
  map->seg[RC_SPACE_MODULE] = g->segs;
  map->nseg[RC_SPACE_MODULE] = g->n;
  map->module_names = g->names;
}

void sim_globals_free(sim_globals *g) {
  free(g->segs);
  free(g->store);
  free((void *)g->names);
  memset(g, 0, sizeof *g);
}

void sim_access_fault_text(const rc_addr_map *m, const char *const *names, const char *what,
                           uint64_t addr, uint64_t n, char *buf, size_t len) {
  const char *unit = n == 1 ? "byte" : "bytes";
  if (addr < 0x10000) {
    snprintf(buf, len, "%s of %" PRIu64 " %s through a null pointer (address 0x%" PRIx64 ")", what, n,
             unit, addr);
    return;
  }
  char why[200];
  rc_addr_describe(m, names, addr, n, why, sizeof why);
  snprintf(buf, len, "out-of-bounds %s of %" PRIu64 " %s at 0x%016" PRIx64 " (%s)", what, n, unit, addr,
           why);
}

void sim_fault_where(rc_fault *f, const rc_instr *i) {
  const char *file = i->parent && i->parent->parent && i->parent->parent->mod ? i->parent->parent->mod->filename : NULL;
  snprintf(f->file, sizeof f->file, "%s", file ? file : "");
  f->line = file ? i->line : 0;
  f->col = file ? i->col : 0;
}

void sim_thread_name(const rc_run_spec *s, uint64_t linear, const uint32_t gid[3], char *buf,
                     size_t len) {
  if (s->dims > 1)
    snprintf(buf, len, "%" PRIu64 " (global id %u,%u,%u)", linear, gid[0], gid[1], gid[2]);
  else
    snprintf(buf, len, "%" PRIu64, linear);
}

void sim_traces_gather(rc_traces *out, uint64_t n, const uint64_t *toff, const uint32_t *tlen,
                       rc_u32vec *chunk) {
  memset(out, 0, sizeof *out);
  out->nthreads = (uint32_t)n;
  out->start = rc_xmalloc((n + 1) * sizeof *out->start);
  bool in_order = true;
  uint64_t pos = 0;
  for (uint64_t i = 0; i < n; i++) {
    out->start[i] = pos;
    in_order &= toff[i] == pos;
    pos += tlen[i];
  }
  out->start[n] = pos;
  out->len = out->cap = pos;
  if (in_order) {
    out->ids = chunk->data ? chunk->data : rc_xmalloc(sizeof *out->ids);
    chunk->data = NULL;
    chunk->len = chunk->cap = 0;
    return;
  }
  out->ids = rc_xmalloc((pos ? pos : 1) * sizeof *out->ids);
  for (uint64_t i = 0; i < n; i++)
    if (tlen[i]) memcpy(out->ids + out->start[i], chunk->data + toff[i], tlen[i] * sizeof *out->ids);
}
