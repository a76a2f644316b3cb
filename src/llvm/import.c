/* LLVM module -> reconv module, as a view (bridge.h, "import"; docs/llvm.md): its global
 * variables, and every function with a body — kernels and device functions — with blocks and
 * instructions one to one, each recording where it came from, so that export edits the module
 * itself. A function reconv cannot represent (a terminator such as invoke or indirectbr, a
 * parameter of a type reconv only carries) is left out with a warning and passes through export
 * untouched; calls of it are opaque. Also the diagnostics of the LLVM path, and the `reconv-run`
 * comments. */
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

/* LLVM's printer numbers unnamed arguments, blocks and instructions of a function in order (%0, %1,
 * ...). Is v unnamed and numbered so? Then *slot is its number. One walk of the function: only
 * diagnostics ask (import_body numbers the blocks in its own walk). */
static bool unnamed_value(LLVMValueRef v, size_t *len) {
  LLVMGetValueName2(v, len);
  return *len == 0;
}

static bool slot_of(const importer *im, LLVMValueRef v, unsigned long *slot) {
  unsigned long n = 0;
  size_t len;
  unsigned np = LLVMCountParams(im->fn);
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetParam(im->fn, i);
    if (!unnamed_value(a, &len)) continue;
    if (a == v) return *slot = n, true;
    n++;
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(im->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    if (unnamed_value(LLVMBasicBlockAsValue(bb), &len)) n++;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      if (!unnamed_value(i, &len) || LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind) continue;
      if (i == v) return *slot = n, true;
      n++;
    }
  }
  return false;
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
    unsigned long slot;
    if (n && ll_name_chars(name, n) && n < 500)
      snprintf(want, sizeof want, "%%%.*s = ", (int)n, name);
    else if (!n && slot_of(im, v, &slot))
      snprintf(want, sizeof want, "%%%lu = ", slot);
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

int imp_report(importer *im, rc_severity sev, LLVMValueRef at, const char *fmt, ...) {
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
    rc_sb_printf(&sb, "%s @%.*s: ", im->k && im->k->is_function ? "function" : "kernel", (int)n, fname);
  }
  rc_sb_puts(&sb, msg);
  if (at && LLVMIsAInstruction(at)) {
    char *text = bridge_value_text(at);
    rc_sb_printf(&sb, ": `%s`", text);
    free(text);
  }
  rc_report(im->ctx, sev, file, line, col, "%s", sb.data);
  rc_sb_free(&sb);
  free(dbgfile);
  return -1;
}

/* ---- kernels ---------------------------------------------------------------------------------------- */

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

/* A name for an LLVM value in reconv's alphabet: sanitised, unique among the module's kernels,
 * functions and globals (they share the `@` names of the text form). */
static const char *global_name(importer *im, LLVMValueRef v, const char *prefix) {
  size_t n;
  const char *name = LLVMGetValueName2(v, &n);
  rc_strbuf base;
  rc_sb_init(&base);
  if (n) bridge_sanitize(name, n, prefix, &base);
  else rc_sb_printf(&base, "%s", prefix);
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_puts(&sb, base.data);
  for (unsigned i = 1; rc_module_find_kernel(im->m, sb.data) || rc_module_find_global(im->m, sb.data); i++) {
    sb.len = 0;
    rc_sb_printf(&sb, "%s_%u", base.data, i);
  }
  const char *r = rc_arena_strdup(&im->m->arena, sb.data);
  rc_sb_free(&sb);
  rc_sb_free(&base);
  return r;
}

/* ---- globals ---------------------------------------------------------------------------------------- */

static void import_globals(importer *im) {
  uint32_t index = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(im->lmod); g; g = LLVMGetNextGlobal(g)) {
    index++;
    rc_type vt = imp_type(im, LLVMGlobalGetValueType(g));
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
    uint64_t size = rc_type_is_value(im->m, vt) ? rc_type_alloc_size(im->m, vt) : 0;
    if (!size || size > ((uint64_t)1 << 30) || as > 255) continue; /* operands using it are opaque */
    uint8_t *init = NULL;
    LLVMValueRef c = LLVMIsDeclaration(g) ? NULL : LLVMGetInitializer(g);
    if (c && !LLVMIsAUndefValue(c) && !LLVMIsAConstantAggregateZero(c)) {
      init = rc_xmalloc(size);
      if (!imp_constant_bytes(im, c, init, size))
        imp_report(im, RC_SEV_WARNING, NULL, "global @%s: its initialiser holds addresses, which reconv's "
                   "simulators read as zero", LLVMGetValueName2(g, &(size_t){0}));
    }
    rc_global *rg = rc_global_new(im->m, global_name(im, g, "g"), vt, as, LLVMIsGlobalConstant(g), init);
    free(init);
    if (!rg) continue;
    rg->origin = index;
    ptrmap_put(&im->globals, g, rg);
  }
}

/* ---- functions --------------------------------------------------------------------------------------- */

/* Why reconv leaves function f alone, or NULL when it imports it. */
static const char *unsupported(importer *im, LLVMValueRef f, char *buf, size_t len) {
  unsigned np = LLVMCountParams(f);
  for (unsigned i = 0; i < np; i++) {
    rc_type t = imp_type(im, LLVMTypeOf(LLVMGetParam(f, i)));
    if (!rc_type_is_value(im->m, t)) {
      snprintf(buf, len, "parameter %u has type %s, which reconv does not represent", i + 1, rc_type_str(im->m, t));
      return buf;
    }
  }
  rc_type rt = imp_type(im, LLVMGetReturnType(LLVMGlobalGetValueType(f)));
  if (rt != RC_VOID && !rc_type_is_value(im->m, rt)) {
    snprintf(buf, len, "its result has type %s, which reconv does not represent", rc_type_str(im->m, rt));
    return buf;
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    LLVMOpcode op = t ? LLVMGetInstructionOpcode(t) : LLVMUnreachable;
    bool ok = t && (op == LLVMRet || op == LLVMBr || op == LLVMUnreachable ||
                    (op == LLVMSwitch && LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(t, 0))) <= 64));
    if (!ok) {
      char *text = t ? bridge_value_text(t) : NULL;
      snprintf(buf, len, "reconv does not model the terminator `%s`", text ? text : "(none)");
      free(text);
      return buf;
    }
  }
  return NULL;
}

/* The kernel or device function for f, with its parameters (the body comes later, so that calls
 * can refer to every function). */
static rc_kernel *declare_function(importer *im, LLVMValueRef f, uint32_t index) {
  bool kernel = bridge_is_kernel(im->lmod, f);
  const char *name = global_name(im, f, kernel ? "k" : "f");
  rc_type rt = imp_type(im, LLVMGetReturnType(LLVMGlobalGetValueType(f)));
  rc_kernel *k = kernel ? rc_kernel_new(im->m, name) : rc_function_new(im->m, name, rt);
  k->origin = index;
  im->fn = f;
  im->k = k;
  unsigned np = LLVMCountParams(f);
  if (!kernel) k->param_divergent = rc_arena_alloc(&im->m->arena, np ? np : 1);
  unsigned inreg = LLVMGetEnumAttributeKindForName("inreg", 5);
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetParam(f, i);
    rc_value *p = rc_kernel_add_param(k, imp_type(im, LLVMTypeOf(a)), NULL);
    size_t n;
    const char *pname = LLVMGetValueName2(a, &n);
    char *meta = n || !kernel ? NULL : kernel_arg_name(im, i);
    rc_strbuf sb;
    rc_sb_init(&sb);
    if (n) bridge_sanitize(pname, n, "v", &sb);
    else if (meta) bridge_sanitize(meta, strlen(meta), "v", &sb);
    else rc_sb_printf(&sb, "arg%u", i);
    bridge_name_value(k, p, sb.data);
    rc_sb_free(&sb);
    free(meta);
    /* a device function's arguments differ between the threads of a call unless passed in scalar
     * registers (amdgcn's `inreg`): the target's view, refined by the module's uniformity */
    if (!kernel) k->param_divergent[i] = !LLVMGetEnumAttributeAtIndex(f, i + 1, inreg);
  }
  im->fn = NULL;
  im->k = NULL;
  return k;
}

/* Block flags and branch annotations written by reconv's export (metadata on the terminator), or
 * LLVM's own verdict when asked for (--llvm-divergence). */
static void read_annotations(importer *im, LLVMValueRef term, rc_block *b, rc_instr *t) {
  if (LLVMGetMetadata(term, im->md_flow)) b->bflags |= RC_BLOCK_FLOW;
  if (LLVMGetMetadata(term, im->md_guard)) b->bflags |= RC_BLOCK_GUARD;
  if (LLVMGetMetadata(term, im->md_virtual)) b->bflags |= RC_BLOCK_VIRTUAL;
  if (!t || (t->op != RC_OP_BR && t->op != RC_OP_SWITCH)) return;
  const uint8_t *llvm = ptrmap_get(&im->llvm_divergence, im->fn);
  if (llvm) t->iflags |= llvm[b->origin - 1] ? RC_IF_DIVERGENT : RC_IF_UNIFORM;
  else if (LLVMGetMetadata(term, im->md_uniform)) t->iflags |= RC_IF_UNIFORM;
  else if (LLVMGetMetadata(term, im->md_divergent)) t->iflags |= RC_IF_DIVERGENT;
}

/* The body of f: blocks one to one, then instructions in two passes (import_instr.c). */
static int import_body(importer *im, LLVMValueRef f, rc_kernel *k) {
  im->fn = f;
  im->k = k;
  ptrmap_init(&im->values);
  ptrmap_init(&im->blocks);
  im->prologue_last = NULL;
  im->cur = NULL;
  /* One walk counts the instructions (the maps get their size at once: growing them is page faults
   * on big functions) and numbers the unnamed values as LLVM's printer does, so that unnamed blocks
   * get names (bb6) that match the labels of the .ll text. */
  uint32_t ninst = 0, nbb = 0;
  unsigned long slot = 0;
  rc_u32vec block_slot = {0}; /* per block: its number when unnamed, else RC_NONE */
  size_t len;
  unsigned np = LLVMCountParams(f);
  for (unsigned i = 0; i < np; i++) slot += unnamed_value(LLVMGetParam(f, i), &len);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb), nbb++) {
    rc_vec_push(&block_slot, unnamed_value(LLVMBasicBlockAsValue(bb), &len) ? (uint32_t)slot++ : RC_NONE);
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      ninst++;
      if (unnamed_value(inst, &len) && LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMVoidTypeKind) slot++;
    }
  }
  ptrmap_reserve(&im->values, ninst + k->nparams + 64);
  ptrmap_reserve(&im->blocks, nbb);
  for (uint32_t i = 0; i < k->nparams; i++) ptrmap_put(&im->values, LLVMGetParam(f, i), k->params[i]);
  uint32_t nb = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
    size_t n;
    const char *bname = LLVMGetValueName2(LLVMBasicBlockAsValue(bb), &n);
    rc_strbuf sb;
    rc_sb_init(&sb);
    if (n) bridge_sanitize(bname, n, "bb", &sb);
    else rc_sb_printf(&sb, "bb%lu", (unsigned long)block_slot.data[nb]);
    rc_block *b = rc_block_new(k, sb.data);
    b->origin = ++nb;
    ptrmap_put(&im->blocks, bb, b);
    rc_sb_free(&sb);
  }
  RC_VEC(LLVMValueRef) insts = {0};
  RC_VEC(rc_instr *) shells = {0};
  rc_vec_reserve(&insts, ninst);
  rc_vec_reserve(&shells, ninst);
  int rc = 0;
  uint32_t index = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && rc == 0; bb = LLVMGetNextBasicBlock(bb)) {
    rc_block *b = ptrmap_get(&im->blocks, bb);
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst)) {
      im->cur = inst;
      im->cur_index = ++index;
      rc_instr *ri = imp_shell(im, inst, b);
      if (!ri) {
        rc = -1;
        break;
      }
      rc_vec_push(&insts, inst);
      rc_vec_push(&shells, ri);
      if (LLVMIsATerminatorInst(inst)) read_annotations(im, inst, b, ri);
    }
  }
  /* values map to their shells as imp_shell put them into `values` (an LLVM value of type void has
   * none); the cache of recent ones starts empty for each function */
  memset(im->recent, 0, sizeof im->recent);
  for (uint32_t i = 0; i < insts.len && rc == 0; i++) {
    rc = imp_fill_operands(im, insts.data[i], shells.data[i]);
    if (LLVMGetTypeKind(LLVMTypeOf(insts.data[i])) != LLVMVoidTypeKind) {
      uint32_t slot = imp_recent_slot(insts.data[i]);
      im->recent[slot].key = insts.data[i];
      im->recent[slot].val = &shells.data[i]->v;
    }
  }
  memset(im->recent, 0, sizeof im->recent); /* imp_operand outside the fill (constants) */
  rc_vec_free(&insts);
  rc_vec_free(&shells);
  ptrmap_free(&im->values);
  ptrmap_free(&im->blocks);
  rc_vec_free(&block_slot);
  im->fn = NULL;
  im->k = NULL;
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
      if (im->m->kernels[k]->is_function) continue;
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
        if (!named[k] && !im->m->kernels[k]->is_function) rc_kernel_set_run_spec(im->m->kernels[k], rcs->data[i].spec);
  free(named);
  return rc;
}

void bridge_origin_free(void *origin) {
  bridge_origin *o = origin;
  if (o->mod) LLVMDisposeModule(o->mod);
  LLVMContextDispose(o->ctx);
  free(o);
}

/* The LLVM module stays alive with the reconv module: export copies and edits it. */
static void keep_origin(importer *im) {
  bridge_origin *o = rc_xmalloc(sizeof *o);
  o->ctx = im->lctx;
  o->mod = im->lmod;
  o->borrowed = false;
  LLVMContextSetDiagnosticHandler(im->lctx, NULL, NULL); /* the handler's buffer goes with the import */
  im->m->origin = o;
  im->m->origin_free = bridge_origin_free;
  im->lmod = NULL;
  im->lctx = NULL;
}

/* Import im->lmod (of context im->lctx), read from im->path: every function with a body, then
 * the run specifications (its metadata, then the comments rcs). Returns the module, which does not
 * own the LLVM module yet (keep_origin, or the caller's module for rc_llvm_import_module), or NULL
 * after reporting. A module without a function reconv can read is an error unless allow_empty. */
static rc_module *import_module(importer *im, const rc_llvm_import_opts *opts, const bridge_run_comments *rcs,
                                bool allow_empty) {
  rc_ctx *ctx = im->ctx;
  const char *path = im->path;
  im->td = LLVMGetModuleDataLayout(im->lmod);
  im->md_flow = LLVMGetMDKindIDInContext(im->lctx, "reconv.flow", 11);
  im->md_guard = LLVMGetMDKindIDInContext(im->lctx, "reconv.guard", 12);
  im->md_virtual = LLVMGetMDKindIDInContext(im->lctx, "reconv.virtual", 14);
  im->md_uniform = LLVMGetMDKindIDInContext(im->lctx, "reconv.uniform", 14);
  im->md_divergent = LLVMGetMDKindIDInContext(im->lctx, "reconv.divergent", 16);
  im->md_run = LLVMGetMDKindIDInContext(im->lctx, "reconv.run", 10);
  rc_module *m = rc_module_new(ctx, path);
  im->m = m;
  const char *triple = LLVMGetTarget(im->lmod);
  m->triple = rc_arena_strdup(&m->arena, triple ? triple : "");
  im->amdgcn = triple && strncmp(triple, "amdgcn", 6) == 0;
  LLVMValueRef *fns = NULL;
  bool failed = false;
  if (opts && opts->llvm_divergence && bridge_llvm_divergence(ctx, path, im->lmod, &im->llvm_divergence)) {
    failed = true;
    goto done;
  }
  import_globals(im);
  uint32_t nfns = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(im->lmod); f; f = LLVMGetNextFunction(f)) nfns++;
  fns = rc_xcalloc(nfns ? nfns : 1, sizeof *fns);
  /* every function first (calls may name functions defined later), then the bodies */
  uint32_t index = 0;
  char why[600];
  for (LLVMValueRef f = LLVMGetFirstFunction(im->lmod); f; f = LLVMGetNextFunction(f)) {
    index++;
    if (LLVMIsDeclaration(f)) continue;
    if (unsupported(im, f, why, sizeof why)) {
      im->fn = f;
      imp_report(im, RC_SEV_WARNING, NULL, "left as it is: %s", why);
      im->fn = NULL;
      continue;
    }
    rc_kernel *k = declare_function(im, f, index);
    fns[m->nkernels - 1] = f;
    ptrmap_put(&im->functions, f, k);
  }
  for (uint32_t i = 0; i < m->nkernels && !failed; i++) {
    failed = import_body(im, fns[i], m->kernels[i]) != 0;
    if (!failed && !m->kernels[i]->is_function) {
      char *spec = metadata_run_spec(im, fns[i]);
      if (spec) rc_kernel_set_run_spec(m->kernels[i], spec);
      free(spec);
    }
  }
  if (!failed && m->nkernels == 0 && !allow_empty) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "no functions with a body that reconv can read");
    failed = true;
  }
  if (!failed && apply_run_specs(im, rcs, fns)) failed = true;
  if (!failed && rc_verify_module(ctx, m)) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "internal error: reconv's view of this module does not verify");
    failed = true;
  }
done:
  free(fns);
  ptrmap_free(&im->types);
  ptrmap_free(&im->functions);
  ptrmap_free(&im->globals);
  for (uint32_t i = 0; i < im->llvm_divergence.cap; i++) free(im->llvm_divergence.slots[i].val);
  ptrmap_free(&im->llvm_divergence);
  if (failed) {
    rc_module_free(m);
    m = NULL;
  }
  return m;
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
  bridge_run_comments rcs = {0};
  if (bridge_load(ctx, path, opts, im.lctx, &diags, &im.lmod, &text, &text_len)) goto done;
  im.text = text;
  im.text_len = text_len;
  size_t plen = strlen(path);
  im.text_is_ll = plen > 3 && strcmp(path + plen - 3, ".ll") == 0;
  if (text && bridge_scan_run_comments(ctx, path, text, text_len, &rcs)) goto done;
  m = import_module(&im, opts, &rcs, false);
  if (m) keep_origin(&im);
done:
  bridge_run_comments_free(&rcs);
  free(text);
  if (im.lmod) LLVMDisposeModule(im.lmod);
  if (im.lctx) LLVMContextDispose(im.lctx);
  rc_sb_free(&diags.text);
  return m;
}

/* The origin of a module the caller owns: only the record goes with the reconv module. */
static void borrowed_origin_free(void *origin) {
  free(origin);
}

rc_module *rc_llvm_import_module(rc_ctx *ctx, struct LLVMOpaqueModule *mod, const rc_llvm_import_opts *opts) {
  importer im;
  memset(&im, 0, sizeof im);
  im.ctx = ctx;
  size_t n = 0;
  const char *id = LLVMGetModuleIdentifier(mod, &n);
  char *path = rc_xmalloc(n + 1);
  memcpy(path, id, n);
  path[n] = 0;
  im.path = path;
  im.lmod = mod;
  im.lctx = LLVMGetModuleContext(mod);
  bridge_run_comments none = {0};
  rc_module *m = import_module(&im, opts, &none, true);
  if (m) {
    bridge_origin *o = rc_xmalloc(sizeof *o);
    o->ctx = im.lctx;
    o->mod = mod;
    o->borrowed = true;
    m->origin = o;
    m->origin_free = borrowed_origin_free;
  }
  free(path);
  return m;
}
