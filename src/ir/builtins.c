/* The table of builtins (from include/reconv/builtins.def) and how their names and modifiers are
 * spelled in the text form. The type rules are in builtin_check.c, the mapping from LLVM's names
 * in builtin_names.c. */
#include "ir_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nargs: the spec is "R:ARGS", so a string literal of sizeof - 3 argument letters */
static const rc_builtin_info builtins[RC_BI_COUNT] = {
#define X(id, name, sig, spec, flags)                                                              \
  [RC_BI_##id] = {name, RC_SIG_##sig, ((flags) & RC_BF_DIVERGENT) != 0,                          \
                  ((flags) & RC_BF_EFFECTS) != 0, spec, (uint16_t)(flags), (uint8_t)(sizeof(spec) - 3)},
#include "reconv/builtins.def"
#undef X
};

const rc_builtin_info *rc_builtin_get(rc_builtin b) {
  return (unsigned)b < RC_BI_COUNT ? &builtins[b] : NULL;
}

int rc_builtin_lookup(const char *name) {
  for (int i = 0; i < RC_BI_COUNT; i++)
    if (strcmp(builtins[i].name, name) == 0) return i;
  return -1;
}

/* ---- modifiers ------------------------------------------------------------------------------- */

static const char *const rounding_names[5] = {"", "rte", "rtz", "rtp", "rtn"};
static const char kind_letters[3] = {'f', 's', 'u'};

static int kind_of_letter(char c) {
  for (int k = 0; k < 3; k++)
    if (kind_letters[k] == c) return k;
  return -1;
}

bool rc_builtin_mods_ok(rc_builtin b, int64_t imm) {
  const rc_builtin_info *bi = rc_builtin_get(b);
  if (!bi) return false;
  if (!(bi->flags & RC_BF_MODS)) return imm == 0;
  if (imm < 0) return false;
  switch (b) {
  case RC_BI_CONVERT: {
    int64_t src = (imm >> RC_BM_SRC_SHIFT) & RC_BM_KIND_MASK, dst = (imm >> RC_BM_DST_SHIFT) & RC_BM_KIND_MASK;
    int64_t rnd = (imm & RC_BM_RND_MASK) >> RC_BM_RND_SHIFT;
    if (imm & ~(int64_t)(RC_BM_KIND_MASK << RC_BM_SRC_SHIFT | RC_BM_KIND_MASK << RC_BM_DST_SHIFT | RC_BM_SAT |
                         RC_BM_RND_MASK))
      return false;
    /* saturation makes sense for integer results only (OpenCL: "_sat" is not allowed for floats) */
    return src <= 2 && dst <= 2 && rnd <= 4 && !((imm & RC_BM_SAT) && dst == RC_BM_FLOAT);
  }
  case RC_BI_VSTORE_HALF:
  case RC_BI_VSTOREA_HALF:
    return (imm & ~(int64_t)RC_BM_RND_MASK) == 0 && ((imm & RC_BM_RND_MASK) >> RC_BM_RND_SHIFT) <= 4;
  case RC_BI_ASYNC_COPY:
    return (imm & ~(int64_t)RC_BM_ELEM_MASK) == 0 && imm >= 1 && imm <= 256;
  case RC_BI_ASYNC_COPY_STRIDED:
    return (imm & ~(int64_t)(RC_BM_ELEM_MASK | RC_BM_STRIDE_DST)) == 0 && (imm & RC_BM_ELEM_MASK) >= 1 &&
           (imm & RC_BM_ELEM_MASK) <= 256;
  default: return imm == 0;
  }
}

void rc_builtin_spell(rc_builtin b, int64_t imm, char *buf, size_t len) {
  const rc_builtin_info *bi = rc_builtin_get(b);
  if (!bi) {
    snprintf(buf, len, "?");
    return;
  }
  if (!(bi->flags & RC_BF_MODS) || !rc_builtin_mods_ok(b, imm)) {
    if (!(bi->flags & RC_BF_MODS) || imm == 0) snprintf(buf, len, "%s", bi->name);
    else snprintf(buf, len, "%s.?%lld", bi->name, (long long)imm); /* invalid: the verifier says so */
    return;
  }
  const char *rnd = rounding_names[(imm & RC_BM_RND_MASK) >> RC_BM_RND_SHIFT];
  switch (b) {
  case RC_BI_CONVERT:
    snprintf(buf, len, "convert.%c%c%s%s%s", kind_letters[(imm >> RC_BM_SRC_SHIFT) & RC_BM_KIND_MASK],
             kind_letters[(imm >> RC_BM_DST_SHIFT) & RC_BM_KIND_MASK], imm & RC_BM_SAT ? ".sat" : "",
             *rnd ? "." : "", rnd);
    break;
  case RC_BI_VSTORE_HALF:
  case RC_BI_VSTOREA_HALF: snprintf(buf, len, "%s%s%s", bi->name, *rnd ? "." : "", rnd); break;
  case RC_BI_ASYNC_COPY: snprintf(buf, len, "async_copy.%lld", (long long)imm); break;
  default: /* async_copy_strided */
    snprintf(buf, len, "async_copy_strided.%lld.%s", (long long)(imm & RC_BM_ELEM_MASK),
             imm & RC_BM_STRIDE_DST ? "dst" : "src");
    break;
  }
}

/* The rounding suffix at s (without its dot), or -1. */
static int rounding_of(const char *s) {
  for (int r = 1; r < 5; r++)
    if (strcmp(s, rounding_names[r]) == 0) return r;
  return -1;
}

/* Parse "NUMBER" (1..256). */
static int64_t small_number(const char *s, const char **end) {
  int64_t v = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9' && v <= 256) v = v * 10 + (*p++ - '0');
  *end = p;
  return p == s || v > 256 ? -1 : v;
}

int rc_builtin_parse(const char *name, int64_t *imm) {
  *imm = 0;
  int b = rc_builtin_lookup(name);
  if (b >= 0) return (builtins[b].flags & RC_BF_MODS) && !rc_builtin_mods_ok((rc_builtin)b, 0) ? -1 : b;
  const char *dot = strchr(name, '.');
  if (!dot) return -1;
  size_t base = (size_t)(dot - name);
  const char *m = dot + 1;
  if (base == 7 && memcmp(name, "convert", 7) == 0) {
    int src = kind_of_letter(m[0]), dst = src >= 0 ? kind_of_letter(m[1]) : -1;
    if (dst < 0) return -1;
    int64_t v = (int64_t)src << RC_BM_SRC_SHIFT | (int64_t)dst << RC_BM_DST_SHIFT;
    const char *p = m + 2;
    if (strncmp(p, ".sat", 4) == 0 && (p[4] == 0 || p[4] == '.')) {
      v |= RC_BM_SAT;
      p += 4;
    }
    if (*p == '.') {
      int r = rounding_of(p + 1);
      if (r < 0) return -1;
      v |= (int64_t)r << RC_BM_RND_SHIFT;
    } else if (*p) {
      return -1;
    }
    if (!rc_builtin_mods_ok(RC_BI_CONVERT, v)) return -1;
    *imm = v;
    return RC_BI_CONVERT;
  }
  if ((base == 11 && memcmp(name, "vstore_half", 11) == 0) || (base == 12 && memcmp(name, "vstorea_half", 12) == 0)) {
    int r = rounding_of(m);
    if (r < 0) return -1;
    *imm = (int64_t)r << RC_BM_RND_SHIFT;
    return base == 11 ? RC_BI_VSTORE_HALF : RC_BI_VSTOREA_HALF;
  }
  if (base == 10 && memcmp(name, "async_copy", 10) == 0) {
    const char *end;
    int64_t n = small_number(m, &end);
    if (n < 1 || *end) return -1;
    *imm = n;
    return RC_BI_ASYNC_COPY;
  }
  if (base == 18 && memcmp(name, "async_copy_strided", 18) == 0) {
    const char *end;
    int64_t n = small_number(m, &end);
    if (n < 1 || *end != '.') return -1;
    if (strcmp(end + 1, "dst") == 0) n |= RC_BM_STRIDE_DST;
    else if (strcmp(end + 1, "src") != 0) return -1;
    *imm = n;
    return RC_BI_ASYNC_COPY_STRIDED;
  }
  return -1;
}
