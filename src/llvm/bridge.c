/* Helpers shared by the LLVM importer and exporter: pointer maps, names, kernel detection and the
 * table of builtins with their LLVM and OpenCL spellings. */
#include "bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pointer map: open addressing, linear probing ------------------------------------------------ */

void ptrmap_init(ptrmap *m) {
  memset(m, 0, sizeof *m);
}

void ptrmap_free(ptrmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

static uint32_t ptr_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

void *ptrmap_get(const ptrmap *m, const void *key) {
  if (!m->cap) return NULL;
  for (uint32_t i = ptr_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->slots[i].key == key) return m->slots[i].val;
    if (!m->slots[i].key) return NULL;
  }
}

/* The table at capacity cap (a power of two), with the entries it had. */
static void ptrmap_rehash(ptrmap *m, uint32_t cap) {
  ptrmap old = *m;
  m->cap = cap;
  m->len = 0;
  m->slots = rc_xcalloc(m->cap, sizeof *m->slots);
  for (uint32_t i = 0; i < old.cap; i++)
    if (old.slots[i].key) ptrmap_put(m, old.slots[i].key, old.slots[i].val);
  free(old.slots);
}

static void ptrmap_grow(ptrmap *m) {
  ptrmap_rehash(m, m->cap ? m->cap * 2 : 64);
}

void ptrmap_reserve(ptrmap *m, uint32_t n) {
  /* the capacity that growing one doubling at a time would reach, in one step: each doubling
   * allocated and cleared a table, and for the values of a 10^5-block function (2^21 slots) the
   * tables on the way came to another 32 MB of fresh memory */
  uint64_t cap = m->cap ? m->cap : 64;
  while (((uint64_t)n + 1) * 2 > cap) cap *= 2;
  if (cap != m->cap) ptrmap_rehash(m, (uint32_t)cap);
}

void ptrmap_put(ptrmap *m, const void *key, void *val) {
  if ((m->len + 1) * 2 > m->cap) ptrmap_grow(m);
  for (uint32_t i = ptr_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    ptrmap_slot *s = &m->slots[i];
    if (s->key == key) {
      s->val = val;
      return;
    }
    if (!s->key) {
      s->key = key;
      s->val = val;
      m->len++;
      return;
    }
  }
}

/* ---- names ------------------------------------------------------------------------------------------ */

void bridge_sanitize(const char *s, size_t n, const char *prefix, rc_strbuf *out) {
  if (n && s[0] >= '0' && s[0] <= '9') rc_sb_puts(out, prefix);
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    rc_sb_putc(out, ok ? c : '_');
  }
  if (!out->data) rc_sb_puts(out, "");
}

void bridge_name_value(rc_kernel *k, rc_value *v, const char *base) {
  if (!base || !*base || rc_value_set_name(k, v, base)) return;
  char buf[1100];
  for (unsigned n = 1;; n++) {
    snprintf(buf, sizeof buf, "%.1000s_%u", base, n);
    if (rc_value_set_name(k, v, buf)) return;
  }
}

char *bridge_value_text(LLVMValueRef v) {
  char *s = LLVMPrintValueToString(v);
  rc_strbuf sb;
  rc_sb_init(&sb);
  const char *p = s;
  while (*p == ' ') p++;
  /* one line; drop ", !dbg !N" and other metadata attachments, which say nothing to a reader */
  for (; *p && *p != '\n'; p++) {
    if (p[0] == ',' && p[1] == ' ' && p[2] == '!') break;
    rc_sb_putc(&sb, *p);
  }
  LLVMDisposeMessage(s);
  if (!sb.data) rc_sb_puts(&sb, "");
  /* and a call's attribute group (" #3"), which only means something with the whole module */
  size_t n = sb.len;
  while (n && sb.data[n - 1] >= '0' && sb.data[n - 1] <= '9') n--;
  if (n >= 2 && n < sb.len && sb.data[n - 1] == '#' && sb.data[n - 2] == ' ') sb.data[sb.len = n - 2] = 0;
  return sb.data;
}

/* ---- kernels ------------------------------------------------------------------------------------------ */

static bool listed_in_opencl_kernels(LLVMModuleRef m, LLVMValueRef f) {
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "opencl.kernels");
  if (!n) return false;
  LLVMValueRef *nodes = rc_xcalloc(n, sizeof *nodes);
  LLVMGetNamedMetadataOperands(m, "opencl.kernels", nodes);
  bool found = false;
  for (unsigned i = 0; i < n && !found; i++) {
    unsigned nops = LLVMGetMDNodeNumOperands(nodes[i]);
    if (!nops) continue;
    LLVMValueRef *ops = rc_xcalloc(nops, sizeof *ops);
    LLVMGetMDNodeOperands(nodes[i], ops);
    found = ops[0] == f;
    free(ops);
  }
  free(nodes);
  return found;
}

bool bridge_is_kernel(LLVMModuleRef m, LLVMValueRef f) {
  if (LLVMIsDeclaration(f)) return false;
  unsigned cc = LLVMGetFunctionCallConv(f);
  if (cc == LLVMAMDGPUKERNELCallConv || cc == LLVMSPIRKERNELCallConv) return true;
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned kind = LLVMGetMDKindIDInContext(c, "kernel_arg_addr_space", 21);
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(f, &n);
  bool has = false;
  for (size_t i = 0; i < n; i++) has |= LLVMValueMetadataEntriesGetKind(md, (unsigned)i) == kind;
  if (md) LLVMDisposeValueMetadataEntries(md);
  return has || listed_in_opencl_kernels(m, f);
}

rc_type bridge_scalar_type(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind:
    switch (LLVMGetIntTypeWidth(t)) {
    case 1: return RC_I1;
    case 8: return RC_I8;
    case 16: return RC_I16;
    case 32: return RC_I32;
    case 64: return RC_I64;
    default: return RC_VOID;
    }
  case LLVMFloatTypeKind: return RC_F32;
  case LLVMDoubleTypeKind: return RC_F64;
  case LLVMPointerTypeKind: return RC_PTR;
  default: return RC_VOID;
  }
}

/* ---- builtins --------------------------------------------------------------------------------------- */

/* What export of a .rir kernel calls for a builtin (export_instr.c): one LLVM intrinsic or OpenCL
 * name each. The import knows every spelling (src/ir/builtin_names.c). */
static const bridge_math math_table[] = {
    {RC_BI_SQRT, "llvm.sqrt", "sqrt"},
    {RC_BI_FABS, "llvm.fabs", "fabs"},
    {RC_BI_FLOOR, "llvm.floor", "floor"},
    {RC_BI_CEIL, "llvm.ceil", "ceil"},
    {RC_BI_FTRUNC, "llvm.trunc", "trunc"},
    {RC_BI_ROUND, "llvm.round", "round"},
    {RC_BI_EXP, "llvm.exp", "exp"},
    {RC_BI_EXP2, "llvm.exp2", "exp2"},
    {RC_BI_LOG, "llvm.log", "log"},
    {RC_BI_LOG2, "llvm.log2", "log2"},
    {RC_BI_SIN, "llvm.sin", "sin"},
    {RC_BI_COS, "llvm.cos", "cos"},
    {RC_BI_RSQRT, NULL, "rsqrt"}, /* llvm.amdgcn.rsq too, on import */
    {RC_BI_FMIN, "llvm.minnum", "fmin"},
    {RC_BI_FMAX, "llvm.maxnum", "fmax"},
    {RC_BI_POW, "llvm.pow", "pow"},
    {RC_BI_COPYSIGN, "llvm.copysign", "copysign"},
    {RC_BI_FMA, "llvm.fma", "fma"},
    /* llvm.fmuladd and OpenCL's mad: fused or not, as the target likes; never the same builtin as
     * fma, which is always fused (a host without fused multiply-add computes them differently) */
    {RC_BI_FMULADD, "llvm.fmuladd", "mad"},
    {RC_BI_RINT, "llvm.rint", "rint"},
    {RC_BI_RINT, "llvm.nearbyint", NULL},
    {RC_BI_FMINIMUM, "llvm.minimum", NULL},
    {RC_BI_FMAXIMUM, "llvm.maximum", NULL},
    {RC_BI_SMIN, "llvm.smin", NULL},
    {RC_BI_SMAX, "llvm.smax", NULL},
    {RC_BI_UMIN, "llvm.umin", NULL},
    {RC_BI_UMAX, "llvm.umax", NULL},
    {RC_BI_ABS, "llvm.abs", "abs"},
    {RC_BI_CTPOP, "llvm.ctpop", "popcount"},
    {RC_BI_CLZ, "llvm.ctlz", "clz"},
    {RC_BI_CTZ, "llvm.cttz", "ctz"},
};

const bridge_math *bridge_math_table(uint32_t *n) {
  *n = sizeof math_table / sizeof math_table[0];
  return math_table;
}

/* The OpenCL work-item functions (size_t results) and the subgroup functions of cl_khr_subgroups
 * for the wave queries; export calls them by their mangled names, as clang emits them. */
static const bridge_query query_table[] = {
    {RC_BI_GLOBAL_ID, "get_global_id", "_Z13get_global_idj"},
    {RC_BI_LOCAL_ID, "get_local_id", "_Z12get_local_idj"},
    {RC_BI_GROUP_ID, "get_group_id", "_Z12get_group_idj"},
    {RC_BI_GLOBAL_SIZE, "get_global_size", "_Z15get_global_sizej"},
    {RC_BI_LOCAL_SIZE, "get_local_size", "_Z14get_local_sizej"},
    {RC_BI_NUM_GROUPS, "get_num_groups", "_Z14get_num_groupsj"},
    {RC_BI_LANE_ID, "get_sub_group_local_id", "_Z22get_sub_group_local_idv"},
    {RC_BI_WAVE_SIZE, "get_sub_group_size", "_Z18get_sub_group_sizev"},
};

const bridge_query *bridge_query_table(uint32_t *n) {
  *n = sizeof query_table / sizeof query_table[0];
  return query_table;
}
