/* The native oracle's runtime library (docs/native.md): compiled by clang for the module's target
 * when a module is prepared (or taken from one prepared before, rc_native_open's `share`), and linked
 * in function by function: a module needs a few dozen of its thousands of functions, and reading
 * and linking all of them would take longer than running most kernels.
 *
 * After compiling, the library is read once to strip its debug information and to note which of its
 * functions refers to which; a module then loads it lazily (no function body is read until linked),
 * deletes the functions its calls do not reach, and links the rest. The conversions
 * (native_rt_convert.cl) are a part of their own, compiled only for the destination types a module
 * converts to (-DTO_int ...). */
#define _DEFAULT_SOURCE /* mkstemps */
#include "native_internal.h"
#include "native_rt.h" /* generated from native_rt.cl and native_rt_convert.cl (CMakeLists.txt) */

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Linker.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const conv_types[] = {"char", "uchar", "short", "ushort", "int",
                                         "uint", "long",  "ulong", "float",  "double"};
enum { NCONV = sizeof conv_types / sizeof conv_types[0] };

/* The OpenCL name in a mangled one (`_Z13get_global_idj`: get_global_id), or the name itself. */
static void base_name(const char *s, const char **b, size_t *len) {
  *b = s;
  *len = strlen(s);
  if (s[0] != '_' || s[1] != 'Z') return;
  char *end;
  unsigned long n = strtoul(s + 2, &end, 10);
  if (end != s + 2 && n <= strlen(end)) {
    *b = end;
    *len = n;
  }
}

/* The destination types of the conversions m calls (convert_uchar4_sat: uchar), a bit each. */
static uint32_t conversions_called(LLVMModuleRef m) {
  uint32_t to = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    const char *b;
    size_t len;
    base_name(LLVMGetValueName(f), &b, &len);
    if (!LLVMIsDeclaration(f) || len <= 8 || strncmp(b, "convert_", 8) != 0) continue;
    size_t t = 8;
    while (t < len && b[t] >= 'a' && b[t] <= 'z') t++;
    for (uint32_t i = 0; i < NCONV; i++)
      if (strlen(conv_types[i]) == t - 8 && strncmp(b + 8, conv_types[i], t - 8) == 0) to |= 1u << i;
  }
  return to;
}

/* ---- compiling ----------------------------------------------------------------------------------- */

/* clang reads files: the source goes through a temporary one. -O0: clang's time is what a run
 * waits for, and the library's code is seldom hot. */
static int compile_cl(rc_native *n, const char *src, const char *what, const char *const *defines,
                      unsigned ndefines, char **bc, size_t *len) {
  const char *tmpdir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/reconv-%s-XXXXXX.cl", tmpdir && *tmpdir ? tmpdir : "/tmp", what);
  int fd = mkstemps(path, 3);
  if (fd < 0) return rc_error(n->ctx, "cannot create a temporary file for the native runtime: %s", strerror(errno));
  size_t todo = strlen(src);
  const char *p = src;
  while (todo) {
    ssize_t w = write(fd, p, todo);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    p += w;
    todo -= (size_t)w;
  }
  close(fd);
  int rc = -1;
  if (todo) {
    rc_error(n->ctx, "cannot write %s: %s", path, strerror(errno));
  } else {
    rc_llvm_import_opts o = {0};
    o.target = n->triple;
    o.opt_level = "0";
    o.defines = defines;
    o.ndefines = ndefines;
    rc = bridge_compile_cl(n->ctx, path, &o, bc, len);
  }
  remove(path);
  return rc;
}

/* Every function f refers to (calls, mostly), as indices of defs via the map. */
static void note_refs(LLVMValueRef f, const rc_strmap *index, rc_u32vec *deps) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      int nops = LLVMGetNumOperands(i);
      for (int o = 0; o < nops; o++) {
        LLVMValueRef v = LLVMGetOperand(i, (unsigned)o);
        uintptr_t k = v && LLVMIsAFunction(v) ? (uintptr_t)rc_strmap_get(index, LLVMGetValueName(v)) : 0;
        if (k) rc_vec_push(deps, (uint32_t)(k - 1));
      }
    }
}

/* Compile one part of the library and note what it defines, declares and refers to. */
static int compile_lib(rc_native *n, const char *src, const char *what, const char *const *defines,
                       unsigned ndefines, native_lib *lib) {
  char *bc;
  size_t len;
  if (compile_cl(n, src, what, defines, ndefines, &bc, &len)) return -1;
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bc, len, "native runtime");
  free(bc);
  LLVMModuleRef m = NULL;
  bool bad = LLVMParseBitcodeInContext2(n->lctx, buf, &m);
  LLVMDisposeMemoryBuffer(buf);
  if (bad)
    return rc_error(n->ctx, "cannot read the compiled native runtime%s%s", n->diags.text.len ? ": " : "",
                    n->diags.text.len ? n->diags.text.data : "");
  LLVMStripModuleDebugInfo(m);
  native_names defs = {0}, decls = {0};
  rc_strmap index;
  rc_strmap_init(&index);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMGetIntrinsicID(f)) continue;
    char *name = rc_xstrdup(LLVMGetValueName(f));
    if (LLVMIsDeclaration(f)) {
      rc_vec_push(&decls, name);
    } else {
      rc_vec_push(&defs, name);
      rc_strmap_put(&index, name, (void *)(uintptr_t)defs.len);
    }
  }
  rc_u32vec deps = {0};
  lib->dep_start = rc_xmalloc((defs.len + 1) * sizeof *lib->dep_start);
  uint32_t i = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMGetIntrinsicID(f) || LLVMIsDeclaration(f)) continue;
    lib->dep_start[i++] = deps.len;
    note_refs(f, &index, &deps);
  }
  lib->dep_start[i] = deps.len;
  rc_strmap_free(&index);
  lib->defs = defs.data;
  lib->ndefs = defs.len;
  lib->decls = decls.data;
  lib->ndecls = decls.len;
  lib->deps = deps.data;
  LLVMMemoryBufferRef out = LLVMWriteBitcodeToMemoryBuffer(m);
  lib->len = LLVMGetBufferSize(out);
  lib->bc = memcpy(rc_xmalloc(lib->len), LLVMGetBufferStart(out), lib->len);
  LLVMDisposeMemoryBuffer(out);
  LLVMDisposeModule(m);
  return 0;
}

static char **copy_names(char *const *names, uint32_t n) {
  char **out = rc_xmalloc((n ? n : 1) * sizeof *out);
  for (uint32_t i = 0; i < n; i++) out[i] = rc_xstrdup(names[i]);
  return out;
}

static void copy_lib(native_lib *dst, const native_lib *src) {
  *dst = *src;
  dst->bc = memcpy(rc_xmalloc(src->len), src->bc, src->len);
  dst->defs = copy_names(src->defs, src->ndefs);
  dst->decls = copy_names(src->decls, src->ndecls);
  dst->dep_start = memcpy(rc_xmalloc((src->ndefs + 1) * sizeof *src->dep_start), src->dep_start,
                          (src->ndefs + 1) * sizeof *src->dep_start);
  size_t nd = src->dep_start[src->ndefs];
  dst->deps = memcpy(rc_xmalloc((nd ? nd : 1) * sizeof *src->deps), src->deps, nd * sizeof *src->deps);
}

void native_lib_free(native_lib *l) {
  for (uint32_t i = 0; l->defs && i < l->ndefs; i++) free(l->defs[i]);
  for (uint32_t i = 0; l->decls && i < l->ndecls; i++) free(l->decls[i]);
  free(l->defs);
  free(l->decls);
  free(l->dep_start);
  free(l->deps);
  free(l->bc);
  memset(l, 0, sizeof *l);
}

/* ---- linking ------------------------------------------------------------------------------------------ */

/* Link into n->mod the functions of lib that its declarations reach. The library's definitions
 * become linkonce_odr, so that a definition of the module's own wins. */
static int link_lib(rc_native *n, const native_lib *lib, const char *triple, const char *layout,
                    rc_strmap *host, native_names *names) {
  rc_strmap index;
  rc_strmap_init(&index);
  for (uint32_t i = 0; i < lib->ndefs; i++) rc_strmap_put(&index, lib->defs[i], (void *)(uintptr_t)(i + 1));
  bool *needed = rc_xcalloc(lib->ndefs ? lib->ndefs : 1, 1);
  rc_u32vec work = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f)) {
    uintptr_t k = LLVMIsDeclaration(f) ? (uintptr_t)rc_strmap_get(&index, LLVMGetValueName(f)) : 0;
    if (k && !needed[k - 1]) {
      needed[k - 1] = true;
      rc_vec_push(&work, (uint32_t)(k - 1));
    }
  }
  bool any = work.len > 0;
  while (work.len) {
    uint32_t i = work.data[--work.len];
    for (uint32_t d = lib->dep_start[i]; d < lib->dep_start[i + 1]; d++)
      if (!needed[lib->deps[d]]) {
        needed[lib->deps[d]] = true;
        rc_vec_push(&work, lib->deps[d]);
      }
  }
  rc_vec_free(&work);
  int rc = 0;
  LLVMModuleRef rt = NULL;
  if (!any) goto out;
  /* takes the buffer, also when it fails */
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(lib->bc, lib->len, "native runtime");
  if (LLVMGetBitcodeModuleInContext2(n->lctx, buf, &rt)) {
    rc = rc_error(n->ctx, "cannot read the compiled native runtime");
    goto out;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(rt), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    if (LLVMIsDeclaration(f)) continue;
    uintptr_t k = (uintptr_t)rc_strmap_get(&index, LLVMGetValueName(f));
    if (!k || !needed[k - 1]) LLVMDeleteFunction(f); /* never read: nothing refers to it */
    else if (LLVMGetLinkage(f) == LLVMExternalLinkage) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  }
  native_retarget(rt, triple, layout);
  for (uint32_t i = 0; i < lib->ndecls; i++) {
    char *name = rc_xstrdup(lib->decls[i]);
    rc_vec_push(names, name);
    rc_strmap_put(host, name, name);
  }
  if (LLVMLinkModules2(n->mod, rt)) /* destroys rt */
    rc = rc_error(n->ctx, "cannot link the native runtime into %s%s%s", n->path,
                  n->diags.text.len ? ": " : "", n->diags.text.len ? n->diags.text.data : "");
out:
  free(needed);
  rc_strmap_free(&index);
  return rc;
}

int native_add_runtime(rc_native *n, const rc_native *share, const char *triple, const char *layout,
                       rc_strmap *host, native_names *names) {
  bool same = share && strcmp(share->triple, n->triple) == 0;
  if (same && share->rt.bc) copy_lib(&n->rt, &share->rt);
  else if (compile_lib(n, native_rt_cl, "native-rt", NULL, 0, &n->rt)) return -1;
  uint32_t to = conversions_called(n->mod);
  if (to && same && share->conv.bc && (share->conv.to & to) == to) {
    copy_lib(&n->conv, &share->conv);
  } else if (to) {
    to |= same ? share->conv.to : 0; /* what the shared one had too, for the next to share */
    char defs[NCONV][16];
    const char *d[NCONV];
    unsigned nd = 0;
    for (uint32_t i = 0; i < NCONV; i++)
      if (to & (1u << i)) {
        snprintf(defs[nd], sizeof defs[nd], "TO_%s", conv_types[i]);
        d[nd] = defs[nd];
        nd++;
      }
    if (compile_lib(n, native_rt_convert_cl, "native-convert", d, nd, &n->conv)) return -1;
    n->conv.to = to;
  }
  if (link_lib(n, &n->rt, triple, layout, host, names)) return -1;
  return n->conv.bc ? link_lib(n, &n->conv, triple, layout, host, names) : 0;
}
