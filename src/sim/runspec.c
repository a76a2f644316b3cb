/* Run specifications (docs/cli.md, "Run specifications"): the launch size, the wave size, the step
 * budget and the value of every kernel parameter. The same words come from a kernel's `!run "..."`
 * string (defaults) and from the command line (applied on top). Every error names the offending
 * word. */
#include "decode.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS RC_MAX_THREADS
#define MAX_GROUP 1024u                 /* work-items per work-group */

typedef RC_VEC(char *) word_vec;

/* Where errors go: the command line (no position) or a kernel's !run string. */
typedef struct spec_parser {
  rc_ctx *ctx;
  const char *file;
  uint32_t line, col;
  const char *prefix;  /* "kernel @k: !run: " or "" */
  const char *basedir; /* directory for relative file(PATH), or NULL */
} spec_parser;

static int serr(const spec_parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int serr(const spec_parser *p, const char *fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return rc_report(p->ctx, RC_SEV_ERROR, p->file, p->line, p->col, "%s%s", p->prefix, msg);
}

void rc_run_spec_init(rc_run_spec *s) {
  memset(s, 0, sizeof *s);
  s->global[0] = s->global[1] = s->global[2] = 1;
  s->dims = 1;
  s->wave = 32;
}

static void arg_free(rc_arg_spec *a) {
  free((void *)a->param);
  free((void *)a->path);
  free((void *)a->text);
  free(a->leaves);
}

void rc_run_spec_free(rc_run_spec *s) {
  for (uint32_t i = 0; i < s->nargs; i++) arg_free(&s->args[i]);
  free(s->args);
  rc_run_spec_init(s);
}

static char *dup_or_null(const char *x) {
  return x ? rc_xstrdup(x) : NULL;
}

void rc_run_spec_copy(rc_run_spec *dst, const rc_run_spec *src) {
  *dst = *src;
  dst->args = rc_xmalloc((src->nargs ? src->nargs : 1) * sizeof *dst->args);
  for (uint32_t i = 0; i < src->nargs; i++) {
    dst->args[i] = src->args[i];
    dst->args[i].param = dup_or_null(src->args[i].param);
    dst->args[i].path = dup_or_null(src->args[i].path);
    dst->args[i].text = dup_or_null(src->args[i].text);
    if (src->args[i].leaves) {
      size_t bytes = src->args[i].nleaves * sizeof *src->args[i].leaves;
      dst->args[i].leaves = rc_xmalloc(bytes);
      memcpy(dst->args[i].leaves, src->args[i].leaves, bytes);
    }
  }
}

const rc_arg_spec *rc_run_spec_find_arg(const rc_run_spec *s, const char *param) {
  for (uint32_t i = 0; i < s->nargs; i++)
    if (strcmp(s->args[i].param, param) == 0) return &s->args[i];
  return NULL;
}

/* ---- numbers --------------------------------------------------------------------------------- */

/* Copy [s, s+n) into buf as a C string; false when it does not fit. */
static bool cstr(char *buf, size_t size, const char *s, size_t n) {
  if (n + 1 > size) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  return true;
}

/* A decimal or 0x-hex integer with an optional sign. Unsigned values up to 2^64-1 wrap. */
static bool num_int(const char *s, size_t n, int64_t *out) {
  char buf[72];
  if (n == 0 || !cstr(buf, sizeof buf, s, n)) return false;
  const char *q = buf;
  bool neg = *q == '-';
  if (*q == '-' || *q == '+') q++;
  if (!(*q >= '0' && *q <= '9')) return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(q, &end, 0);
  if (errno || *end) return false;
  if (neg && v > (unsigned long long)INT64_MAX + 1) return false;
  *out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)(uint64_t)v;
  return true;
}

static bool num_float(const char *s, size_t n, double *out) {
  char buf[72];
  if (n == 0 || !cstr(buf, sizeof buf, s, n)) return false;
  const char *q = buf[0] == '-' || buf[0] == '+' ? buf + 1 : buf;
  double sign = buf[0] == '-' ? -1.0 : 1.0;
  if (strcmp(q, "inf") == 0) return *out = sign * INFINITY, true;
  if (strcmp(q, "nan") == 0) return *out = NAN, true;
  if (!((*q >= '0' && *q <= '9') || *q == '.')) return false;
  char *end;
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || (errno == ERANGE && isinf(v))) return false;
  *out = v;
  return true;
}

/* INT, or a count in terms of N: N, N*K, K*N, each optionally followed by +C or -C. */
static bool num_nexpr(const char *s, size_t n, bool *uses_n, uint64_t *mul, int64_t *add,
                      int64_t *literal) {
  const char *npos = memchr(s, 'N', n);
  if (!npos) {
    *uses_n = false;
    return num_int(s, n, literal);
  }
  if (memchr(npos + 1, 'N', (size_t)(s + n - npos - 1))) return false;
  /* split off a trailing +C / -C after the N term */
  size_t term_end = n;
  for (size_t i = (size_t)(npos - s) + 1; i < n; i++)
    if (s[i] == '+' || s[i] == '-') {
      term_end = i;
      break;
    }
  int64_t c = 0;
  if (term_end < n && !num_int(s + term_end, n - term_end, &c)) return false;
  /* num_int reads 64-bit patterns (2^64 - 3 is -3); here C is a signed offset, which must not wrap */
  if (term_end < n && ((s[term_end] == '+' && c < 0) || (s[term_end] == '-' && c > 0))) return false;
  int64_t k = 1;
  size_t at = (size_t)(npos - s);
  if (at == 0) { /* N or N*K */
    if (term_end > 1) {
      if (s[1] != '*' || !num_int(s + 2, term_end - 2, &k)) return false;
    }
  } else { /* K*N */
    if (at < 2 || s[at - 1] != '*' || term_end != at + 1 || !num_int(s, at - 1, &k)) return false;
  }
  if (k < 0) return false;
  *uses_n = true;
  *mul = (uint64_t)k;
  *add = c;
  return true;
}

static bool int_fits(rc_type t, int64_t v) {
  unsigned bits = rc_type_bits(t);
  if (t == RC_I1) return v == 0 || v == 1;
  if (bits >= 64) return true;
  return v >= -((int64_t)1 << (bits - 1)) && v <= (int64_t)(((uint64_t)1 << bits) - 1);
}

/* ---- options ------------------------------------------------------------------------------------ */

static int parse_dims(const spec_parser *p, const char *opt, const char *val, uint32_t out[3],
                      uint32_t *ndims) {
  uint32_t v[3] = {1, 1, 1}, n = 0;
  const char *q = val;
  for (;;) {
    const char *comma = strchr(q, ',');
    size_t len = comma ? (size_t)(comma - q) : strlen(q);
    int64_t x;
    if (n == 3 || !num_int(q, len, &x) || x < 1 || (uint64_t)x > MAX_THREADS)
      return serr(p, "%s expects 1 to 3 positive integers (at most %" PRIu64 ") separated by commas, not '%s'",
                  opt, MAX_THREADS, val);
    v[n++] = (uint32_t)x;
    if (!comma) break;
    q = comma + 1;
  }
  memcpy(out, v, sizeof v);
  *ndims = n;
  return 0;
}

static int parse_range(const spec_parser *p, const char *opt, const char *val, uint64_t lo,
                       uint64_t hi, uint64_t *out) {
  int64_t x;
  if (!num_int(val, strlen(val), &x) || x < 0 || (uint64_t)x < lo || (uint64_t)x > hi)
    return serr(p, "%s expects an integer from %" PRIu64 " to %" PRIu64 ", not '%s'", opt, lo, hi, val);
  *out = (uint64_t)x;
  return 0;
}

/* ---- --arg ---------------------------------------------------------------------------------------- */

static int parse_type_name(const char *s, size_t n) {
  for (int t = RC_I1; t <= RC_F64; t++) {
    const char *name = rc_type_name((rc_type)t);
    if (strlen(name) == n && memcmp(name, s, n) == 0) return t;
  }
  if (n == 3 && memcmp(s, "f16", 3) == 0) return RC_F16; /* OpenCL's half buffers */
  return -1;
}

/* One number of an INIT's argument list, typed by the buffer's element type. */
static bool init_number(rc_type elem, const char *s, size_t n, int64_t *i, double *f) {
  if (rc_type_is_float(elem)) {
    int64_t iv;
    if (num_int(s, n, &iv)) {
      *f = (double)iv;
      return true;
    }
    return num_float(s, n, f);
  }
  if (!num_int(s, n, i) || !int_fits(elem, *i)) return false;
  *f = (double)*i;
  return true;
}

/* Split "a,b,c" (not nested) into at most max pieces. */
static uint32_t split_commas(const char *s, size_t n, const char **part, size_t *len, uint32_t max) {
  uint32_t k = 0;
  const char *q = s, *end = s + n;
  for (;;) {
    const char *c = memchr(q, ',', (size_t)(end - q));
    if (k == max) return max + 1;
    part[k] = q;
    len[k++] = c ? (size_t)(c - q) : (size_t)(end - q);
    if (!c) return k;
    q = c + 1;
  }
}

static bool word_is(const char *s, size_t n, const char *word) {
  return n == strlen(word) && memcmp(s, word, n) == 0;
}

static int parse_init(const spec_parser *p, rc_arg_spec *a, const char *init) {
  const char *open = strchr(init, '(');
  size_t nlen = open ? (size_t)(open - init) : strlen(init);
  const char *args = NULL;
  size_t alen = 0;
  if (open) {
    size_t total = strlen(init);
    if (init[total - 1] != ')')
      return serr(p, "--arg %s: '%s' lacks its closing ')'", a->text, init);
    args = open + 1;
    alen = total - (nlen + 2);
  }
  const char *part[4];
  size_t plen[4];
  if (word_is(init, nlen, "zeros") && !open) {
    a->init = RC_INIT_ZEROS;
    return 0;
  }
  if (word_is(init, nlen, "seq")) {
    a->init = RC_INIT_SEQ;
    a->ia = 0, a->ib = 1, a->a = 0, a->b = 1;
    if (!open) return 0;
    if (split_commas(args, alen, part, plen, 2) != 2 ||
        !init_number(a->elem, part[0], plen[0], &a->ia, &a->a) ||
        !init_number(a->elem, part[1], plen[1], &a->ib, &a->b))
      return serr(p, "--arg %s: expected seq(START,STEP) with two %s numbers", a->text,
                  rc_type_name(a->elem));
    return 0;
  }
  if (word_is(init, nlen, "rand") && open) {
    a->init = RC_INIT_RAND;
    bool is_float = rc_type_is_float(a->elem);
    a->ia = 0, a->ib = a->elem == RC_I1 ? 1 : 99, a->a = 0, a->b = 1;
    uint32_t k = split_commas(args, alen, part, plen, 3);
    int64_t seed;
    if ((k != 1 && k != 3) || !num_int(part[0], plen[0], &seed) || seed < 0 ||
        (k == 3 && (!init_number(a->elem, part[1], plen[1], &a->ia, &a->a) ||
                    !init_number(a->elem, part[2], plen[2], &a->ib, &a->b))))
      return serr(p, "--arg %s: expected rand(SEED) or rand(SEED,LO,HI) with a non-negative seed "
                     "and %s bounds", a->text, rc_type_name(a->elem));
    if (is_float ? !(a->a <= a->b) || !isfinite(a->a) || !isfinite(a->b) : a->ia > a->ib)
      return serr(p, "--arg %s: rand needs LO <= HI", a->text);
    a->seed = (uint64_t)seed;
    return 0;
  }
  if (word_is(init, nlen, "fill") && open) {
    a->init = RC_INIT_FILL;
    if (!init_number(a->elem, args, alen, &a->ia, &a->a))
      return serr(p, "--arg %s: expected fill(V) with a %s value", a->text, rc_type_name(a->elem));
    return 0;
  }
  if (word_is(init, nlen, "file") && open) {
    if (alen == 0) return serr(p, "--arg %s: file() needs a path", a->text);
    a->init = RC_INIT_FILE;
    char *path;
    if (args[0] != '/' && p->basedir) {
      size_t bl = strlen(p->basedir);
      path = rc_xmalloc(bl + alen + 2);
      memcpy(path, p->basedir, bl);
      path[bl] = '/';
      memcpy(path + bl + 1, args, alen);
      path[bl + 1 + alen] = 0;
    } else {
      path = rc_xmalloc(alen + 1);
      memcpy(path, args, alen);
      path[alen] = 0;
    }
    a->path = path;
    return 0;
  }
  return serr(p, "--arg %s: unknown initialiser '%s' (zeros, seq, seq(START,STEP), rand(SEED), "
                 "rand(SEED,LO,HI), fill(V), file(PATH))", a->text, init);
}

/* TYPE[COUNT] with an optional :INIT; `local` says it was written after "local:". */
static int parse_buffer(const spec_parser *p, rc_arg_spec *a, const char *v, bool local) {
  const char *lb = strchr(v, '[');
  const char *rb = lb ? strchr(lb, ']') : NULL;
  int t = lb ? parse_type_name(v, (size_t)(lb - v)) : -1;
  if (t < 0 || !rb)
    return serr(p, "--arg %s: expected TYPE[COUNT] with TYPE one of i1 i8 i16 i32 i64 f16 f32 f64", a->text);
  a->is_buffer = true;
  a->is_local = local;
  a->elem = (rc_type)t;
  int64_t lit = 0;
  if (!num_nexpr(lb + 1, (size_t)(rb - lb - 1), &a->uses_n, &a->n_mul, &a->n_add, &lit) ||
      (!a->uses_n && lit < 0))
    return serr(p, "--arg %s: COUNT must be a non-negative integer or N, N*K, N+K, N*K+C ... "
                   "(N = work-items of the launch), not '%.*s'", a->text, (int)(rb - lb - 1), lb + 1);
  a->count = a->uses_n ? 0 : (uint64_t)lit;
  a->init = RC_INIT_ZEROS;
  if (rb[1] == 0) return 0;
  if (rb[1] != ':') return serr(p, "--arg %s: unexpected '%s' after ']'", a->text, rb + 1);
  if (local) return serr(p, "--arg %s: local buffers start zeroed and take no initialiser", a->text);
  return parse_init(p, a, rb + 2);
}

static int parse_scalar(const spec_parser *p, rc_arg_spec *a, const char *v) {
  a->elem = RC_VOID; /* typed by the parameter in rc_run_spec_check */
  if (strcmp(v, "null") == 0) {
    a->elem = RC_PTR;
    return 0;
  }
  if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
    a->scalar_i = v[0] == 't';
    a->scalar_f = (double)a->scalar_i;
    return 0;
  }
  int64_t lit;
  if (num_nexpr(v, strlen(v), &a->uses_n, &a->n_mul, &a->n_add, &lit)) {
    a->scalar_i = lit;
    a->scalar_f = (double)lit;
    return 0;
  }
  if (num_float(v, strlen(v), &a->scalar_f)) {
    a->scalar_is_float = true;
    return 0;
  }
  return serr(p, "--arg %s: expected a number, true, false, null, N (the launch's work-items), "
                 "TYPE[COUNT][:INIT], local:TYPE[COUNT] or {V,V,...} (a vector, struct or array)", a->text);
}

/* {V,V,...}: a vector or a by-value struct or array, one number (or true, false) per leaf; typed, and its
 * count checked, against the parameter in rc_run_spec_check */
static int parse_aggregate(const spec_parser *p, rc_arg_spec *a, const char *v) {
  size_t n = strlen(v);
  if (n < 2 || v[n - 1] != '}')
    return serr(p, "--arg %s: '%s' lacks its closing '}'", a->text, v);
  a->is_aggregate = true;
  a->elem = RC_VOID;
  const char *q = v + 1, *end = v + n - 1;
  if (q == end) return serr(p, "--arg %s: {} gives no values; a vector, struct or array needs one a scalar element", a->text);
  for (;;) {
    const char *c = memchr(q, ',', (size_t)(end - q));
    size_t len = c ? (size_t)(c - q) : (size_t)(end - q);
    struct rc_arg_leaf leaf = {0};
    if (word_is(q, len, "true") || word_is(q, len, "false")) leaf.i = q[0] == 't';
    else if (!num_int(q, len, &leaf.i) && !(leaf.is_float = num_float(q, len, &leaf.f)))
      return serr(p, "--arg %s: value %u, '%.*s', is not a number, true or false", a->text,
                  a->nleaves + 1, (int)len, q);
    if (!leaf.is_float) leaf.f = (double)leaf.i;
    a->leaves = rc_xrealloc(a->leaves, (a->nleaves + 1) * sizeof *a->leaves);
    a->leaves[a->nleaves++] = leaf;
    if (!c) return 0;
    q = c + 1;
  }
}

static int parse_arg(const spec_parser *p, rc_run_spec *s, const char *word) {
  const char *eq = strchr(word, '=');
  const char *name = word[0] == '%' ? word + 1 : word;
  if (!eq || eq == name)
    return serr(p, "--arg expects NAME=VALUE, not '%s'", word);
  for (const char *c = name; c < eq; c++)
    if (!(c[0] == '_' || c[0] == '.' || (c[0] >= '0' && c[0] <= '9') || (c[0] >= 'a' && c[0] <= 'z') ||
          (c[0] >= 'A' && c[0] <= 'Z')))
      return serr(p, "--arg %s: '%.*s' is not a parameter name", word, (int)(eq - name), name);
  rc_arg_spec a;
  memset(&a, 0, sizeof a);
  a.text = rc_xstrdup(word);
  char *pname = rc_xmalloc((size_t)(eq - name) + 1);
  memcpy(pname, name, (size_t)(eq - name));
  pname[eq - name] = 0;
  a.param = pname;
  const char *v = eq + 1;
  int r;
  if (strncmp(v, "local:", 6) == 0) r = parse_buffer(p, &a, v + 6, true);
  else if (v[0] == '{') r = parse_aggregate(p, &a, v);
  else if (strchr(v, '[')) r = parse_buffer(p, &a, v, false);
  else r = parse_scalar(p, &a, v);
  if (r != 0) {
    arg_free(&a);
    return -1;
  }
  for (uint32_t i = 0; i < s->nargs; i++)
    if (strcmp(s->args[i].param, a.param) == 0) { /* a later --arg replaces an earlier one */
      arg_free(&s->args[i]);
      s->args[i] = a;
      return 0;
    }
  s->args = rc_xrealloc(s->args, (s->nargs + 1) * sizeof *s->args);
  s->args[s->nargs++] = a;
  return 0;
}

/* ---- words ---------------------------------------------------------------------------------------- */

static const char *const option_names[] = {"--global", "--local", "--wave", "--steps", "--seed", "--arg"};

int rc_run_spec_option_arity(const char *word) {
  for (size_t o = 0; o < sizeof option_names / sizeof option_names[0]; o++) {
    size_t n = strlen(option_names[o]);
    if (strncmp(word, option_names[o], n) == 0 && (word[n] == 0 || word[n] == '='))
      return word[n] == '=' ? 1 : 2;
  }
  return 0;
}

/* Is word the option `name` (as "--name VALUE" or "--name=VALUE")? Sets *val and *used. */
static int option(const spec_parser *p, int argc, char **argv, int i, const char *name,
                  const char **val, int *used) {
  size_t n = strlen(name);
  if (strncmp(argv[i], name, n) != 0) return 0;
  if (argv[i][n] == '=') {
    *val = argv[i] + n + 1;
    *used = 1;
    return 1;
  }
  if (argv[i][n] != 0) return 0;
  if (i + 1 >= argc) return serr(p, "%s needs a value", name), -1;
  *val = argv[i + 1];
  *used = 2;
  return 1;
}

static int parse_words(const spec_parser *p, rc_run_spec *s, int argc, char **argv, bool *consumed) {
  for (int i = 0; i < argc; i++) {
    const char *val = NULL;
    int used = 0, r;
    if ((r = option(p, argc, argv, i, "--global", &val, &used)) != 0) {
      if (r < 0 || parse_dims(p, "--global", val, s->global, &s->dims) != 0) return -1;
    } else if ((r = option(p, argc, argv, i, "--local", &val, &used)) != 0) {
      uint32_t n = 0;
      if (r < 0 || parse_dims(p, "--local", val, s->local, &n) != 0) return -1;
      for (uint32_t d = n; d < 3; d++) s->local[d] = 0;
    } else if ((r = option(p, argc, argv, i, "--wave", &val, &used)) != 0) {
      uint64_t w = 0;
      if (r < 0 || parse_range(p, "--wave", val, 1, 64, &w) != 0) return -1;
      s->wave = (uint32_t)w;
    } else if ((r = option(p, argc, argv, i, "--steps", &val, &used)) != 0) {
      if (r < 0 || parse_range(p, "--steps", val, 1, RC_MAX_STEP_BUDGET, &s->step_budget) != 0) return -1;
    } else if ((r = option(p, argc, argv, i, "--seed", &val, &used)) != 0) {
      if (r < 0 || parse_range(p, "--seed", val, 0, UINT64_MAX / 2, &s->seed_offset) != 0) return -1;
    } else if ((r = option(p, argc, argv, i, "--arg", &val, &used)) != 0) {
      if (r < 0 || parse_arg(p, s, val) != 0) return -1;
    } else {
      continue;
    }
    for (int u = 0; u < used; u++) consumed[i + u] = true;
    i += used - 1;
  }
  return 0;
}

int rc_run_spec_parse(rc_ctx *ctx, rc_run_spec *s, int argc, char **argv, bool *consumed) {
  spec_parser p = {ctx, NULL, 0, 0, "", NULL};
  return parse_words(&p, s, argc, argv, consumed);
}

/* Split text into words at white space; '...' and "..." group a word with spaces in it. */
static int split_words(const spec_parser *p, const char *text, word_vec *words) {
  const char *q = text;
  for (;;) {
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (!*q) return 0;
    rc_charvec w = {0};
    while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') {
      if (*q == '\'' || *q == '"') {
        char quote = *q++;
        while (*q && *q != quote) rc_vec_push(&w, *q++);
        if (!*q) {
          rc_vec_free(&w);
          return serr(p, "unterminated %c quote", quote);
        }
        q++;
      } else {
        rc_vec_push(&w, *q++);
      }
    }
    rc_vec_push(&w, 0);
    rc_vec_push(words, w.data);
  }
}

static int parse_text(const spec_parser *p, rc_run_spec *s, const char *text) {
  word_vec words = {0};
  int r = split_words(p, text, &words);
  bool *consumed = rc_xcalloc(words.len + 1, sizeof *consumed);
  if (r == 0) r = parse_words(p, s, (int)words.len, words.data, consumed);
  for (uint32_t i = 0; r == 0 && i < words.len; i++)
    if (!consumed[i]) r = serr(p, "unknown run-spec word '%s' (expected --global, --local, --wave, "
                                  "--steps, --seed or --arg)", words.data[i]);
  for (uint32_t i = 0; i < words.len; i++) free(words.data[i]);
  rc_vec_free(&words);
  free(consumed);
  return r;
}

int rc_run_spec_parse_string(rc_ctx *ctx, rc_run_spec *s, const char *text) {
  spec_parser p = {ctx, NULL, 0, 0, "", NULL};
  return parse_text(&p, s, text);
}

int rc_run_spec_parse_kernel(rc_ctx *ctx, rc_run_spec *s, const rc_kernel *k) {
  if (!k->run_spec) return 0;
  char prefix[160];
  snprintf(prefix, sizeof prefix, "kernel @%s: !run: ", k->name);
  const char *file = k->mod->filename;
  char *dir = NULL;
  const char *slash = file ? strrchr(file, '/') : NULL;
  if (slash) {
    dir = rc_xmalloc((size_t)(slash - file) + 1);
    memcpy(dir, file, (size_t)(slash - file));
    dir[slash - file] = 0;
  }
  spec_parser p = {ctx, file, k->line, k->col, prefix, dir};
  int r = parse_text(&p, s, k->run_spec);
  free(dir);
  return r;
}

/* ---- the launch ----------------------------------------------------------------------------------- */

/* a * b * c, or UINT64_MAX when it overflows */
static uint64_t product3(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t ab, abc;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc)) return UINT64_MAX;
  return abc;
}

uint64_t rc_run_spec_threads(const rc_run_spec *s) {
  return product3(s->global[0], s->global[1], s->global[2]);
}

void rc_run_spec_local(const rc_run_spec *s, uint32_t local[3]) {
  for (int d = 0; d < 3; d++) {
    uint32_t l = s->local[d] ? s->local[d] : d == 0 ? 64 : 1;
    local[d] = l < s->global[d] ? l : s->global[d];
  }
}

/* N * n_mul + n_add; *ok is false when it leaves the range of int64. */
static int64_t nvalue_checked(const rc_arg_spec *a, const rc_run_spec *s, bool *ok) {
  int64_t prod, sum;
  uint64_t n = rc_run_spec_threads(s);
  *ok = n <= INT64_MAX && a->n_mul <= INT64_MAX &&
        !__builtin_mul_overflow((int64_t)n, (int64_t)a->n_mul, &prod) &&
        !__builtin_add_overflow(prod, a->n_add, &sum);
  return *ok ? sum : 0;
}

static int64_t nvalue(const rc_arg_spec *a, const rc_run_spec *s) {
  bool ok;
  return nvalue_checked(a, s, &ok);
}

uint64_t rc_arg_count(const rc_arg_spec *a, const rc_run_spec *s) {
  return a->uses_n ? (uint64_t)nvalue(a, s) : a->count;
}

int64_t rc_arg_scalar_int(const rc_arg_spec *a, const rc_run_spec *s) {
  return a->uses_n ? nvalue(a, s) : a->scalar_i;
}

void rc_run_spec_resize(rc_run_spec *s, uint32_t n) {
  uint64_t old = rc_run_spec_threads(s);
  for (uint32_t i = 0; i < s->nargs; i++) {
    rc_arg_spec *a = &s->args[i];
    if (!a->is_buffer || a->uses_n || a->count == 0 || a->count % old != 0) continue;
    uint64_t k = a->count / old;
    if ((uint64_t)n * k <= a->count) continue; /* never shrink a literal count */
    a->uses_n = true;
    a->n_mul = k;
    a->n_add = 0;
  }
  s->global[0] = n;
  s->global[1] = s->global[2] = 1;
  s->local[1] = s->local[2] = 0;
  s->dims = 1;
}

int rc_run_spec_scale(rc_run_spec *s, uint32_t k) {
  uint64_t old = rc_run_spec_threads(s);
  uint32_t d = s->dims ? s->dims - 1 : 0;
  if (k == 0 || (uint64_t)s->global[d] * k > UINT32_MAX || old * k > RC_MAX_THREADS) return -1;
  for (uint32_t i = 0; i < s->nargs; i++) {
    rc_arg_spec *a = &s->args[i];
    if (!a->is_buffer || a->uses_n || a->count == 0 || a->count % old != 0) continue;
    a->uses_n = true;
    a->n_mul = a->count / old;
    a->n_add = 0;
  }
  s->global[d] *= k;
  return 0;
}

bool rc_run_spec_uses_seed(const rc_run_spec *s) {
  for (uint32_t i = 0; i < s->nargs; i++)
    if (s->args[i].is_buffer && s->args[i].init == RC_INIT_RAND) return true;
  return false;
}

/* ---- checking against a kernel ---------------------------------------------------------------------- */

/* A vector, struct or array parameter's {V,...}: one value a leaf, each fitting its leaf's type. */
static int check_aggregate(const spec_parser *p, const rc_arg_spec *a, rc_type t, const rc_module *m) {
  uint32_t n = sim_leaves_of(m, t);
  if (a->nleaves != n)
    return serr(p, "--arg %s: parameter %%%s (%s) has %u scalar elements, the value gives %u", a->text,
                a->param, rc_type_str(m, t), n, a->nleaves);
  for (uint32_t j = 0; j < n; j++) {
    rc_type leaf = sim_leaf_type(m, t, j, NULL);
    const struct rc_arg_leaf *v = &a->leaves[j];
    if (rc_type_is_float(leaf)) continue;
    if (v->is_float)
      return serr(p, "--arg %s: value %u is for an element of type %s, not a floating-point type "
                     "(parameter %%%s)", a->text, j + 1, rc_type_str(m, leaf), a->param);
    if (rc_type_is_ptr(leaf) ? v->i != 0 : !int_fits(leaf, v->i))
      return serr(p, "--arg %s: value %u, %" PRId64 ", does not fit in element type %s (parameter %%%s)",
                  a->text, j + 1, v->i, rc_type_str(m, leaf), a->param);
  }
  return 0;
}

static int check_arg(const spec_parser *p, const rc_run_spec *s, const rc_arg_spec *a, const rc_value *param,
                     const rc_module *m) {
  rc_type t = (rc_type)param->type;
  bool by_value_aggregate = sim_is_split_type(m, t);
  if (a->is_aggregate && !by_value_aggregate)
    return serr(p, "--arg %s: {...} is for vector and by-value struct and array parameters; %%%s is %s",
                a->text, a->param, rc_type_str(m, t));
  if (by_value_aggregate && !a->is_aggregate)
    return serr(p, "--arg %s: parameter %%%s is a by-value %s: give its %u scalar elements in order, "
                   "%s={V,V,...}", a->text, a->param, rc_type_str(m, t), sim_leaves_of(m, t), a->param);
  if (a->is_aggregate) return check_aggregate(p, a, t, m);
  if (a->is_buffer) {
    if (!rc_type_is_ptr(t))
      return serr(p, "--arg %s: parameter %%%s has type %s; buffers are for ptr parameters", a->text,
                  a->param, rc_type_str(m, t));
    /* LLVM's address spaces (OpenCL C 1.2 section 6.5; amdgcn and spir agree on 1 global, 2 or 4
       constant, 3 local): a local pointer parameter is the group's memory, a global or constant
       one a buffer; address space 0 (reconv's own ptr, generic or private) takes either */
    unsigned as = rc_type_addrspace(t);
    if (as == 3 && !a->is_local)
      return serr(p, "--arg %s: parameter %%%s is %s, a pointer into local memory: give it per "
                     "work-group memory as %s=local:TYPE[COUNT]", a->text, a->param, rc_type_str(m, t), a->param);
    if ((as == 1 || as == 2) && a->is_local)
      return serr(p, "--arg %s: parameter %%%s is %s, a pointer into global or constant memory: give "
                     "it a buffer, %s=TYPE[COUNT]", a->text, a->param, rc_type_str(m, t), a->param);
    bool ok = true;
    int64_t count = a->uses_n ? nvalue_checked(a, s, &ok) : (int64_t)a->count;
    if (!ok)
      return serr(p, "--arg %s: the count overflows for N = %" PRIu64, a->text, rc_run_spec_threads(s));
    if (count < 0)
      return serr(p, "--arg %s: the count is negative for N = %" PRIu64, a->text, rc_run_spec_threads(s));
    if ((uint64_t)count > RC_REGION_MAX_BYTES / rc_type_size(a->elem))
      return serr(p, "--arg %s: %" PRId64 " elements of %s exceed the simulator's %" PRIu64
                     " bytes per buffer", a->text, count, rc_type_name(a->elem), RC_REGION_MAX_BYTES);
    return 0;
  }
  if (a->elem == RC_PTR && !rc_type_is_ptr(t))
    return serr(p, "--arg %s: null is for ptr parameters; %%%s is %s", a->text, a->param, rc_type_str(m, t));
  if (rc_type_is_float(t)) return 0;
  if (a->scalar_is_float) {
    /* an integer literal too big for 64 bits was read as a float: say what is wrong with it */
    const char *v = strchr(a->text, '=');
    const char *digits = v ? v + 1 + (v[1] == '-' || v[1] == '+') : NULL;
    if (digits && *digits && strspn(digits, "0123456789") == strlen(digits))
      return serr(p, "--arg %s: %s does not fit in %s (parameter %%%s)", a->text, v + 1,
                  rc_type_str(m, t), a->param);
    return serr(p, "--arg %s: parameter %%%s has type %s, not a floating-point type", a->text,
                a->param, rc_type_str(m, t));
  }
  bool ok = true;
  int64_t v = a->uses_n ? nvalue_checked(a, s, &ok) : a->scalar_i;
  if (!ok) return serr(p, "--arg %s: the value overflows for N = %" PRIu64, a->text, rc_run_spec_threads(s));
  if (!rc_type_is_ptr(t) && !int_fits(t, v))
    return serr(p, "--arg %s: %" PRId64 " does not fit in %s (parameter %%%s)", a->text, v,
                rc_type_str(m, t), a->param);
  return 0;
}

int rc_run_spec_check(rc_ctx *ctx, const rc_run_spec *s, const rc_kernel *k) {
  char prefix[160];
  snprintf(prefix, sizeof prefix, "kernel @%s: ", k->name);
  spec_parser p = {ctx, k->mod->filename, k->line, k->col, prefix, NULL};
  uint64_t n = rc_run_spec_threads(s);
  if (n > MAX_THREADS)
    return serr(&p, "--global %u,%u,%u: %" PRIu64 " work-items exceed the simulator's %" PRIu64,
                s->global[0], s->global[1], s->global[2], n, MAX_THREADS);
  for (uint32_t d = s->dims; d < 3; d++)
    if (s->local[d] > 1)
      return serr(&p, "--local has more dimensions than --global (%u)", s->dims);
  uint32_t local[3];
  rc_run_spec_local(s, local);
  if (product3(local[0], local[1], local[2]) > MAX_GROUP)
    return serr(&p, "--local %u,%u,%u: work-groups have at most %u work-items", local[0], local[1],
                local[2], MAX_GROUP);
  for (uint32_t i = 0; i < k->nparams; i++) {
    const rc_value *param = k->params[i];
    if (!param->name) return serr(&p, "parameter %u has no name, so no --arg can give it a value", i);
    const rc_arg_spec *a = rc_run_spec_find_arg(s, param->name);
    rc_type t = (rc_type)param->type;
    if (!a && sim_is_split_type(k->mod, t))
      return serr(&p, "parameter %%%s (%s) has no value; give its %u scalar elements in order with --arg "
                      "%s={V,V,...}", param->name, rc_type_str(k->mod, t), sim_leaves_of(k->mod, t), param->name);
    if (!a)
      return serr(&p, "parameter %%%s (%s) has no value; give it with --arg %s=...", param->name,
                  rc_type_str(k->mod, t), param->name);
    if (check_arg(&p, s, a, param, k->mod) != 0) return -1;
  }
  for (uint32_t i = 0; i < s->nargs; i++)
    if (!rc_kernel_find_value(k, s->args[i].param) ||
        rc_kernel_find_value(k, s->args[i].param)->kind != RC_V_PARAM)
      return serr(&p, "--arg %s: the kernel has no parameter %%%s", s->args[i].text, s->args[i].param);
  return 0;
}
