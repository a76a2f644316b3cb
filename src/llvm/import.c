/* LLVM IR -> reconv IR: the module, its kernels, parameters and blocks, and diagnostics.
 *
 * LLVM IR maps onto reconv IR almost one to one (DESIGN.md): SSA values with phis, two-way branches,
 * switch, ret, unreachable. What differs is bridged in import_value.c (operands: constants, globals,
 * constant expressions, getelementptr), import_instr.c and import_call.c. Vectors are scalarised
 * by LLVM's scalarizer before import; what is left is taken apart element by element.
 * Instructions are imported in reverse post-order so that every operand is imported before its use
 * (SSA dominance); phis get their incoming values at the end. Blocks the entry cannot reach are
 * kept; in them, operands defined later read as undef. */
#include "bridge.h"

#include <llvm-c/BitWriter.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics -------------------------------------------------------------------------------------- */

static bool ll_name_chars(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '$' || c == '.' || c == '_'))
      return false;
  }
  return n > 0;
}

/* Find where a .ll file defines `v` (an instruction: "%name =", an argument: its function's
 * "define" line), searching the text of the current function only. */
static bool ll_find_def(const importer *im, LLVMValueRef v, uint32_t *line, uint32_t *col) {
  if (!im->text || !im->text_is_ll || !im->fn) return false;
  size_t fnlen;
  const char *fname = LLVMGetValueName2(im->fn, &fnlen);
  if (!ll_name_chars(fname, fnlen)) return false;
  char want[600];
  want[0] = 0;
  bool is_arg = LLVMIsAArgument(v) != NULL;
  if (!is_arg) {
    size_t n;
    const char *name = LLVMGetValueName2(v, &n);
    uintptr_t slot = (uintptr_t)ptrmap_get(&im->slots, v);
    if (n && ll_name_chars(name, n) && n < 500)
      snprintf(want, sizeof want, "%%%.*s = ", (int)n, name);
    else if (!n && slot)
      snprintf(want, sizeof want, "%%%lu = ", (unsigned long)(slot - 1));
    else
      return false;
  }
  char def[600];
  snprintf(def, sizeof def, "@%.*s(", (int)(fnlen < 500 ? fnlen : 500), fname);
  const char *t = im->text, *end = t + im->text_len;
  bool in_fn = false;
  for (uint32_t ln = 1; t < end; ln++) {
    const char *eol = memchr(t, '\n', (size_t)(end - t));
    if (!eol) eol = end;
    size_t len = (size_t)(eol - t);
    const char *p = t;
    while (p < eol && (*p == ' ' || *p == '\t')) p++;
    if (!in_fn) {
      if (len > 7 && strncmp(t, "define ", 7) == 0) {
        size_t dl = strlen(def);
        for (const char *q = t; q + dl <= eol; q++)
          if (memcmp(q, def, dl) == 0) {
            if (is_arg) {
              *line = ln;
              *col = 1;
              return true;
            }
            in_fn = true;
            break;
          }
      }
    } else {
      if (p < eol && *p == '}') return false;
      size_t wl = strlen(want);
      if ((size_t)(eol - p) >= wl && memcmp(p, want, wl) == 0) {
        *line = ln;
        *col = (uint32_t)(p - t) + 1;
        return true;
      }
    }
    t = eol + 1;
  }
  return false;
}

int imp_error(importer *im, LLVMValueRef at, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* constants and globals have no position; the instruction using them has */
  if (at && !LLVMIsAInstruction(at) && !LLVMIsAArgument(at)) at = im->cur;
  const char *file = im->path;
  char *dbgfile = NULL;
  uint32_t line = 0, col = 0;
  if (at && LLVMIsAInstruction(at) && LLVMGetDebugLocLine(at)) {
    unsigned n = 0;
    const char *f = LLVMGetDebugLocFilename(at, &n);
    if (f && n) {
      dbgfile = rc_xmalloc(n + 1);
      memcpy(dbgfile, f, n);
      dbgfile[n] = 0;
      file = dbgfile;
    }
    line = LLVMGetDebugLocLine(at);
    col = LLVMGetDebugLocColumn(at);
  } else if (at) {
    ll_find_def(im, at, &line, &col);
  }
  rc_strbuf sb;
  rc_sb_init(&sb);
  if (im->fn) {
    size_t n;
    const char *fname = LLVMGetValueName2(im->fn, &n);
    rc_sb_printf(&sb, "kernel @%.*s: ", (int)n, fname);
  }
  rc_sb_puts(&sb, msg);
  if (at && LLVMIsAInstruction(at)) {
    char *text = bridge_value_text(at);
    rc_sb_printf(&sb, ": `%s`", text);
    free(text);
  }
  rc_report(im->ctx, RC_SEV_ERROR, file, line, col, "%s", sb.data);
  rc_sb_free(&sb);
  free(dbgfile);
  return -1;
}

/* ---- kernels ---------------------------------------------------------------------------------------- */

/* Number unnamed arguments, blocks and instructions the way LLVM's printer does (%0, %1, ...), so
 * unnamed blocks get names (bb6) that match the labels of the .ll text. */
static void number_slots(importer *im) {
  uintptr_t n = 0;
  size_t len;
  unsigned np = LLVMCountParams(im->fn);
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetParam(im->fn, i);
    LLVMGetValueName2(a, &len);
    if (!len) ptrmap_put(&im->slots, a, (void *)++n);
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(im->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMGetValueName2(LLVMBasicBlockAsValue(bb), &len);
    if (!len) ptrmap_put(&im->slots, bb, (void *)++n);
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMGetValueName2(i, &len);
      if (!len && LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
        ptrmap_put(&im->slots, i, (void *)++n);
    }
  }
}

/* The kernel_arg_name metadata (clang -cl-kernel-arg-info) names parameters LLVM left unnamed. */
static char *kernel_arg_name(importer *im, unsigned idx) {
  unsigned kind = LLVMGetMDKindIDInContext(im->lctx, "kernel_arg_name", 15);
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(im->fn, &n);
  char *name = NULL;
  for (size_t i = 0; i < n && !name; i++) {
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)i) != kind) continue;
    LLVMValueRef node = LLVMMetadataAsValue(im->lctx, LLVMValueMetadataEntriesGetMetadata(md, (unsigned)i));
    if (idx >= LLVMGetMDNodeNumOperands(node)) break;
    LLVMValueRef *ops = rc_xcalloc(LLVMGetMDNodeNumOperands(node), sizeof *ops);
    LLVMGetMDNodeOperands(node, ops);
    unsigned len = 0;
    const char *s = ops[idx] ? LLVMGetMDString(ops[idx], &len) : NULL;
    if (s && len) {
      name = rc_xmalloc(len + 1);
      memcpy(name, s, len);
      name[len] = 0;
    }
    free(ops);
  }
  if (md) LLVMDisposeValueMetadataEntries(md);
  return name;
}

/* The run specification a kernel carries as !reconv.run metadata (reconv's own export). */
static char *metadata_run_spec(importer *im, LLVMValueRef fn) {
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  char *spec = NULL;
  for (size_t i = 0; i < n && !spec; i++) {
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)i) != im->md_run) continue;
    LLVMValueRef node = LLVMMetadataAsValue(im->lctx, LLVMValueMetadataEntriesGetMetadata(md, (unsigned)i));
    if (LLVMGetMDNodeNumOperands(node) != 1) continue;
    LLVMValueRef op;
    LLVMGetMDNodeOperands(node, &op);
    unsigned len = 0;
    const char *s = op ? LLVMGetMDString(op, &len) : NULL;
    if (s) {
      spec = rc_xmalloc(len + 1);
      memcpy(spec, s, len);
      spec[len] = 0;
    }
  }
  if (md) LLVMDisposeValueMetadataEntries(md);
  return spec;
}

static int import_params(importer *im) {
  unsigned np = LLVMCountParams(im->fn);
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetParam(im->fn, i);
    rc_type t = bridge_scalar_type(LLVMTypeOf(a));
    if (t == RC_VOID) {
      char *s = LLVMPrintTypeToString(LLVMTypeOf(a));
      imp_error(im, a, "parameter %u has type %s, which reconv does not support (scalars and "
                       "pointers only)", i + 1, s);
      LLVMDisposeMessage(s);
      return -1;
    }
    rc_value *p = rc_kernel_add_param(im->k, t, NULL);
    size_t n;
    const char *name = LLVMGetValueName2(a, &n);
    char *meta = n ? NULL : kernel_arg_name(im, i);
    rc_strbuf sb;
    rc_sb_init(&sb);
    if (n) bridge_sanitize(name, n, "v", &sb);
    else if (meta) bridge_sanitize(meta, strlen(meta), "v", &sb);
    else rc_sb_printf(&sb, "arg%u", i);
    bridge_name_value(im->k, p, sb.data);
    rc_sb_free(&sb);
    free(meta);
    imp_set_value(im, a, p);
  }
  return 0;
}

static rc_block *block_of(importer *im, LLVMBasicBlockRef bb) {
  return ptrmap_get(&im->blocks, bb);
}

/* Reverse post-order of the blocks reachable from the entry (iterative DFS). */
static uint32_t reverse_postorder(importer *im, LLVMBasicBlockRef *bbs, uint32_t n, uint32_t *order) {
  uint8_t *state = rc_xcalloc(n ? n : 1, 1);
  uint32_t *stack = rc_xmalloc((n ? n : 1) * sizeof *stack), *next = rc_xcalloc(n ? n : 1, sizeof *next);
  uint32_t sp = 0, post = 0;
  stack[sp++] = 0;
  state[0] = 1;
  while (sp) {
    uint32_t b = stack[sp - 1];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bbs[b]);
    unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
    if (next[b] < ns) {
      rc_block *s = block_of(im, LLVMGetSuccessor(term, next[b]++));
      if (!state[s->id]) {
        state[s->id] = 1;
        stack[sp++] = s->id;
      }
    } else {
      order[post++] = b;
      sp--;
    }
  }
  for (uint32_t i = 0; i < post / 2; i++) {
    uint32_t t = order[i];
    order[i] = order[post - 1 - i];
    order[post - 1 - i] = t;
  }
  free(state);
  free(stack);
  free(next);
  return post;
}

static int fill_phis(importer *im) {
  for (uint32_t p = 0; p < im->phis.len; p++) {
    imp_phi *ph = &im->phis.data[p];
    im->cur = ph->llvm;
    unsigned n = LLVMCountIncoming(ph->llvm);
    for (unsigned i = 0; i < n; i++) {
      rc_block *from = block_of(im, LLVMGetIncomingBlock(ph->llvm, i));
      if (rc_phi_index_of(ph->phis[0], from) >= 0) continue; /* LLVM lists each edge */
      LLVMValueRef v = LLVMGetIncomingValue(ph->llvm, i);
      im->unreachable = !im->reached[from->id]; /* dead predecessors may miss values */
      if (ph->n == 1 && LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind) {
        rc_value *rv = imp_scalar(im, v);
        if (!rv) return -1;
        rc_phi_add_incoming(ph->phis[0], rv, from);
      } else {
        rc_value **e;
        uint32_t ne;
        if (imp_elems(im, v, &e, &ne)) return -1;
        for (uint32_t j = 0; j < ph->n; j++) rc_phi_add_incoming(ph->phis[j], e[j], from);
      }
    }
  }
  im->unreachable = false;
  return 0;
}

/* Source positions of the instructions built for one LLVM instruction: its line in the .cl file
 * when clang's line tables say so and the module came from that file. */
static void set_positions(importer *im, LLVMValueRef inst, rc_block *b, rc_instr *after) {
  unsigned line = LLVMGetDebugLocLine(inst);
  if (!line) return;
  unsigned n = 0;
  const char *f = LLVMGetDebugLocFilename(inst, &n);
  if (!f || strlen(im->path) != n || memcmp(f, im->path, n) != 0) return;
  for (rc_instr *i = after ? after->next : b->first; i; i = i->next) {
    i->line = line;
    i->col = LLVMGetDebugLocColumn(inst);
  }
}

static int import_kernel(importer *im, LLVMValueRef fn) {
  im->fn = fn;
  size_t n;
  const char *fname = LLVMGetValueName2(fn, &n);
  rc_strbuf kname;
  rc_sb_init(&kname);
  bridge_sanitize(fname, n, "k", &kname);
  im->k = rc_kernel_new(im->m, kname.data);
  for (unsigned i = 1; !im->k; i++) {
    rc_strbuf alt;
    rc_sb_init(&alt);
    rc_sb_printf(&alt, "%s_%u", kname.data, i);
    im->k = rc_kernel_new(im->m, alt.data);
    rc_sb_free(&alt);
  }
  rc_sb_free(&kname);
  rc_arena_init(&im->tmp);
  ptrmap_init(&im->values);
  ptrmap_init(&im->blocks);
  ptrmap_init(&im->slots);
  im->prologue_last = NULL;
  im->phis.len = 0;
  im->cur = NULL;
  int rc = -1;
  number_slots(im);
  if (import_params(im)) goto done;

  uint32_t nb = LLVMCountBasicBlocks(fn);
  LLVMBasicBlockRef *bbs = rc_xmalloc(nb * sizeof *bbs);
  LLVMGetBasicBlocks(fn, bbs);
  for (uint32_t i = 0; i < nb; i++) {
    LLVMGetValueName2(LLVMBasicBlockAsValue(bbs[i]), &n);
    rc_strbuf bname;
    rc_sb_init(&bname);
    if (n) bridge_sanitize(LLVMGetValueName2(LLVMBasicBlockAsValue(bbs[i]), &n), n, "bb", &bname);
    else rc_sb_printf(&bname, "bb%lu", (unsigned long)((uintptr_t)ptrmap_get(&im->slots, bbs[i]) - 1));
    rc_block *b = rc_block_new(im->k, bname.data);
    ptrmap_put(&im->blocks, bbs[i], b);
    rc_sb_free(&bname);
  }
  im->entry = im->k->blocks[0];
  uint32_t *order = rc_xmalloc(nb * sizeof *order);
  uint32_t nreach = reverse_postorder(im, bbs, nb, order);
  uint8_t *reached = rc_xcalloc(nb, 1);
  im->reached = reached;
  for (uint32_t i = 0; i < nreach; i++) reached[order[i]] = 1;
  for (uint32_t i = 0, j = nreach; i < nb; i++)
    if (!reached[i]) order[j++] = i; /* dead blocks last, in their order */
  bool ok = true;
  for (uint32_t oi = 0; oi < nb && ok; oi++) {
    uint32_t bi = order[oi];
    rc_block *b = im->k->blocks[bi];
    im->unreachable = !reached[bi];
    rc_builder_at_end(&im->b, b);
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bbs[bi]); inst && ok;
         inst = LLVMGetNextInstruction(inst)) {
      if (imp_lookup(im, inst)) continue; /* folded into an earlier instruction */
      rc_instr *mark = b->last;
      im->cur = inst;
      ok = imp_instr(im, inst) == 0;
      if (ok) set_positions(im, inst, b, mark);
    }
  }
  im->unreachable = false;
  if (ok && fill_phis(im) == 0) rc = 0;
  im->reached = NULL;
  free(reached);
  free(order);
  free(bbs);
done:
  ptrmap_free(&im->values);
  ptrmap_free(&im->blocks);
  ptrmap_free(&im->slots);
  rc_arena_free(&im->tmp);
  rc_vec_free(&im->phis);
  im->fn = NULL;
  return rc;
}

/* ---- the module ------------------------------------------------------------------------------------------ */

/* Comments win over !reconv.run metadata: a kernel's own lines, else the lines for every kernel. */
static int apply_run_specs(importer *im, const bridge_run_comments *rcs, LLVMValueRef *fns) {
  bool *named = rc_xcalloc(im->m->nkernels ? im->m->nkernels : 1, sizeof *named);
  int rc = 0;
  for (uint32_t i = 0; i < rcs->len && rc == 0; i++) {
    const bridge_run_comment *c = &rcs->data[i];
    if (!c->kernel) continue;
    bool found = false;
    for (uint32_t k = 0; k < im->m->nkernels; k++) {
      size_t n;
      const char *name = LLVMGetValueName2(fns[k], &n);
      if (strlen(c->kernel) == n && memcmp(name, c->kernel, n) == 0) {
        rc_kernel_set_run_spec(im->m->kernels[k], c->spec);
        found = named[k] = true;
      }
    }
    if (!found)
      rc = rc_report(im->ctx, RC_SEV_ERROR, im->path, c->line, c->col,
                     "reconv-run names kernel '%s', which this file does not define", c->kernel);
  }
  for (uint32_t i = 0; i < rcs->len && rc == 0; i++)
    if (!rcs->data[i].kernel)
      for (uint32_t k = 0; k < im->m->nkernels; k++)
        if (!named[k]) rc_kernel_set_run_spec(im->m->kernels[k], rcs->data[i].spec);
  free(named);
  return rc;
}

static void keep_origin(importer *im) {
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(im->lmod);
  size_t n = LLVMGetBufferSize(buf);
  void *copy = rc_arena_alloc(&im->m->arena, n ? n : 1);
  memcpy(copy, LLVMGetBufferStart(buf), n);
  im->m->origin = copy;
  im->m->origin_size = n;
  LLVMDisposeMemoryBuffer(buf);
}

rc_module *rc_llvm_import_file(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *opts) {
  importer im;
  memset(&im, 0, sizeof im);
  im.ctx = ctx;
  im.path = path;
  im.lctx = LLVMContextCreate();
  bridge_diags diags;
  rc_sb_init(&diags.text);
  bridge_diags_install(im.lctx, &diags);
  char *text = NULL;
  size_t text_len = 0;
  rc_module *m = NULL;
  LLVMValueRef *fns = NULL;
  bridge_run_comments rcs = {0};
  if (bridge_load(ctx, path, opts, im.lctx, &diags, &im.lmod, &text, &text_len)) goto done;
  im.text = text;
  im.text_len = text_len;
  size_t plen = strlen(path);
  im.text_is_ll = plen > 3 && strcmp(path + plen - 3, ".ll") == 0;
  if (text && bridge_scan_run_comments(ctx, path, text, text_len, &rcs)) goto done;
  im.td = LLVMGetModuleDataLayout(im.lmod);
  im.md_flow = LLVMGetMDKindIDInContext(im.lctx, "reconv.flow", 11);
  im.md_guard = LLVMGetMDKindIDInContext(im.lctx, "reconv.guard", 12);
  im.md_virtual = LLVMGetMDKindIDInContext(im.lctx, "reconv.virtual", 14);
  im.md_uniform = LLVMGetMDKindIDInContext(im.lctx, "reconv.uniform", 14);
  im.md_divergent = LLVMGetMDKindIDInContext(im.lctx, "reconv.divergent", 16);
  im.md_run = LLVMGetMDKindIDInContext(im.lctx, "reconv.run", 10);
  m = rc_module_new(ctx, path);
  im.m = m;
  uint32_t nfns = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(im.lmod); f; f = LLVMGetNextFunction(f)) nfns++;
  fns = rc_xcalloc(nfns ? nfns : 1, sizeof *fns);
  bool failed = false;
  for (LLVMValueRef f = LLVMGetFirstFunction(im.lmod); f && !failed; f = LLVMGetNextFunction(f)) {
    if (!bridge_is_kernel(im.lmod, f)) continue;
    fns[m->nkernels] = f;
    failed = import_kernel(&im, f) != 0;
    if (!failed) {
      char *spec = metadata_run_spec(&im, f);
      if (spec) rc_kernel_set_run_spec(m->kernels[m->nkernels - 1], spec);
      free(spec);
    }
  }
  if (!failed && m->nkernels == 0) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
              "no kernels (functions with the amdgpu_kernel or spir_kernel calling convention or "
              "OpenCL kernel metadata)");
    failed = true;
  }
  if (!failed && apply_run_specs(&im, &rcs, fns)) failed = true;
  if (!failed) keep_origin(&im);
  if (!failed && rc_verify_module(ctx, m)) failed = true;
  if (failed) {
    rc_module_free(m);
    m = NULL;
  }
done:
  free(fns);
  bridge_run_comments_free(&rcs);
  free(text);
  if (im.lmod) LLVMDisposeModule(im.lmod);
  LLVMContextDispose(im.lctx);
  rc_sb_free(&diags.text);
  return m;
}
