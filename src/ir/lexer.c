/* The .rir lexer: comments start with ';' and run to the end of the line; whitespace separates
 * tokens; any other byte that cannot start a token is an error with its position. */
#include "lexer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lex_init(lexer *lx, rc_ctx *ctx, const char *file, const char *text, size_t len) {
  memset(lx, 0, sizeof *lx);
  lx->ctx = ctx;
  lx->file = file;
  lx->p = text;
  lx->end = text + len;
  lx->line = 1;
  lx->col = 1;
}

void lex_free(lexer *lx) {
  free(lx->strbuf);
  lx->strbuf = NULL;
}

static int peekc(const lexer *lx, size_t ahead) {
  return lx->p + ahead < lx->end ? (unsigned char)lx->p[ahead] : -1;
}

static void advance(lexer *lx) {
  if (lx->p >= lx->end) return;
  if (*lx->p == '\n') {
    lx->line++;
    lx->col = 1;
  } else if (lx->col < UINT32_MAX) { /* columns saturate on absurdly long lines */
    lx->col++;
  }
  lx->p++;
}

/* Move over n bytes known to hold no newline (a name, a comment's text, spaces). */
static void advance_n(lexer *lx, size_t n) {
  lx->p += n;
  uint64_t col = (uint64_t)lx->col + n;
  lx->col = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

static bool is_name_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

static bool is_name_char(int c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Length of the run of name characters at p (the hot loop of the lexer on big inputs). */
static size_t name_run(const char *p, const char *end) {
  const char *q = p;
  while (q < end && is_name_char((unsigned char)*q)) q++;
  return (size_t)(q - p);
}

/* A byte as messages show it: 'c' when printable, else its code (the input need not be text). */
static const char *show_byte(int c, char buf[16]) {
  if (c < 0) snprintf(buf, 16, "end of file");
  else if (c >= 0x20 && c < 0x7f) snprintf(buf, 16, "'%c'", c);
  else snprintf(buf, 16, "byte 0x%02x", (unsigned)c);
  return buf;
}

static tok_kind lex_error(lexer *lx, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static tok_kind lex_error(lexer *lx, uint32_t line, uint32_t col, const char *fmt, ...) {
  if (!lx->before_error || !lx->before_error(lx->before_error_user)) {
    va_list ap;
    va_start(ap, fmt);
    rc_vreport(lx->ctx, RC_SEV_ERROR, lx->file, line, col, fmt, ap);
    va_end(ap);
  }
  lx->tok.kind = TK_ERROR;
  return TK_ERROR;
}

void lex_describe(const token *t, char *buf, size_t size) {
  int n = t->len > 40 ? 40 : (int)t->len;
  switch (t->kind) {
  case TK_EOF: snprintf(buf, size, "end of file"); break;
  case TK_IDENT: snprintf(buf, size, "'%.*s'", n, t->text); break;
  case TK_LOCAL: snprintf(buf, size, "'%%%.*s'", n, t->text); break;
  case TK_GLOBAL: snprintf(buf, size, "'@%.*s'", n, t->text); break;
  case TK_REG: snprintf(buf, size, "'$%.*s'", n, t->text); break;
  case TK_INT:
  case TK_FLOAT: snprintf(buf, size, "number '%.*s'", n, t->text); break;
  case TK_STRING: snprintf(buf, size, "a string"); break;
  case TK_ERROR: snprintf(buf, size, "an invalid token"); break;
  default: snprintf(buf, size, "'%.*s'", n, t->text); break;
  }
}

static tok_kind lex_name(lexer *lx, tok_kind kind, bool allow_digit_start) {
  token *t = &lx->tok;
  uint32_t line = lx->line, col = lx->col;
  char sigil = kind != TK_IDENT ? *lx->p : 0;
  if (kind != TK_IDENT) advance(lx);
  t->text = lx->p;
  int c = peekc(lx, 0);
  if (!(is_name_start(c) || (allow_digit_start && c >= '0' && c <= '9'))) {
    char b[16];
    return lex_error(lx, line, col, "expected a name after '%c', found %s", sigil, show_byte(c, b));
  }
  advance_n(lx, name_run(lx->p, lx->end));
  t->len = (size_t)(lx->p - t->text);
  if (t->len > LEX_MAX_NAME)
    return lex_error(lx, line, col, "name longer than %d characters", LEX_MAX_NAME);
  t->kind = kind;
  return kind;
}

static bool is_digit(int c) {
  return c >= '0' && c <= '9';
}

static bool is_hex(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Numbers (docs/ir.md, "Lexical structure"):
 *   [-+]? ( 0x HEX+ | DIGITS ( . DIGITS )? ( [eE] [-+]? DIGITS )? | inf | nan )
 * Integers are decimal (a leading 0 does not mean octal) or hexadecimal and are kept as 64-bit
 * patterns, from -2^63 up to 2^64-1. A '.' or an exponent makes a float, which must be finite
 * (write inf for infinity). */
static tok_kind lex_number(lexer *lx) {
  token *t = &lx->tok;
  uint32_t line = lx->line, col = lx->col;
  const char *start = lx->p;
  char b[16];
  bool neg = false;
  if (peekc(lx, 0) == '-' || peekc(lx, 0) == '+') {
    neg = peekc(lx, 0) == '-';
    advance(lx);
  }
  t->text = start;
  t->negative = neg;
  if (peekc(lx, 0) == 'i' || peekc(lx, 0) == 'n') { /* -inf, +inf, -nan, +nan */
    const char *w = peekc(lx, 0) == 'i' ? "inf" : "nan";
    for (int i = 0; i < 3; i++) {
      if (peekc(lx, 0) != w[i])
        return lex_error(lx, line, col, "malformed number: %s after the sign", show_byte(peekc(lx, 0), b));
      advance(lx);
    }
    if (is_name_char(peekc(lx, 0)))
      return lex_error(lx, line, col, "malformed number: %s after '%.4s'", show_byte(peekc(lx, 0), b), start);
    t->kind = TK_FLOAT;
    t->fval = copysign(w[0] == 'i' ? INFINITY : NAN, neg ? -1.0 : 1.0); /* -nan: sign bit set */
    t->len = (size_t)(lx->p - start);
    return TK_FLOAT;
  }
  bool is_float = false, is_hex_int = false;
  if (peekc(lx, 0) == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X')) {
    is_hex_int = true;
    advance(lx);
    advance(lx);
    if (!is_hex(peekc(lx, 0)))
      return lex_error(lx, line, col, "malformed hexadecimal number: %s after '0x'", show_byte(peekc(lx, 0), b));
    while (is_hex(peekc(lx, 0))) advance(lx);
  } else {
    if (!is_digit(peekc(lx, 0)))
      return lex_error(lx, line, col, "unexpected character '%c'", *start);
    while (is_digit(peekc(lx, 0))) advance(lx);
    if (peekc(lx, 0) == '.' && is_digit(peekc(lx, 1))) {
      is_float = true;
      advance(lx);
      while (is_digit(peekc(lx, 0))) advance(lx);
    }
    if (peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E') {
      int c1 = peekc(lx, 1), c2 = peekc(lx, 2);
      if (is_digit(c1) || ((c1 == '-' || c1 == '+') && is_digit(c2))) {
        is_float = true;
        advance(lx);
        if (!is_digit(peekc(lx, 0))) advance(lx);
        while (is_digit(peekc(lx, 0))) advance(lx);
      }
    }
  }
  if (is_name_char(peekc(lx, 0)))
    return lex_error(lx, line, col, "malformed number: %s after '%.*s'", show_byte(peekc(lx, 0), b),
                     (int)((size_t)(lx->p - start) > 40 ? 40 : (size_t)(lx->p - start)), start);
  t->len = (size_t)(lx->p - start);
  if (t->len > 400) return lex_error(lx, line, col, "number longer than 400 characters");
  char buf[512];
  memcpy(buf, start, t->len);
  buf[t->len] = 0;
  errno = 0;
  if (is_float) {
    t->kind = TK_FLOAT;
    t->fval = strtod(buf, NULL);
    if (isinf(t->fval))
      return lex_error(lx, line, col, "floating-point number '%s' is too large for f64", buf);
    return TK_FLOAT;
  }
  const char *digits = buf + (buf[0] == '-' || buf[0] == '+');
  unsigned long long u = strtoull(digits, NULL, is_hex_int ? 16 : 10);
  if (errno == ERANGE || (neg && u > (unsigned long long)INT64_MAX + 1))
    return lex_error(lx, line, col, "integer '%s' does not fit in 64 bits", buf);
  t->kind = TK_INT;
  t->ival = neg ? (int64_t)(0 - u) : (int64_t)u;
  t->fval = neg ? -(double)u : (double)u;
  return TK_INT;
}

/* Strings: "..." on one line with the escapes \" \\ \n; any other byte but NUL stands for itself. */
static tok_kind lex_string(lexer *lx) {
  token *t = &lx->tok;
  uint32_t line = lx->line, col = lx->col;
  advance(lx); /* opening quote */
  rc_charvec s = {0};
  char b[16];
  for (;;) {
    int c = peekc(lx, 0);
    if (c < 0 || c == '\n') {
      rc_vec_free(&s);
      return lex_error(lx, line, col, "unterminated string");
    }
    if (c == 0) {
      rc_vec_free(&s);
      return lex_error(lx, lx->line, lx->col, "NUL byte in a string");
    }
    advance(lx);
    if (c == '"') break;
    if (c == '\\') {
      int e = peekc(lx, 0);
      if (e != '"' && e != '\\' && e != 'n') {
        rc_vec_free(&s);
        return lex_error(lx, lx->line, lx->col, "unknown escape %s in a string (use \\\" \\\\ or \\n)",
                         show_byte(e, b));
      }
      advance(lx);
      c = e == 'n' ? '\n' : e;
    }
    rc_vec_push(&s, (char)c);
  }
  rc_vec_push(&s, 0);
  free(lx->strbuf);
  lx->strbuf = s.data;
  t->str = s.data;
  t->kind = TK_STRING;
  return TK_STRING;
}

tok_kind lex_next(lexer *lx) {
  token *t = &lx->tok;
  /* skip whitespace and comments */
  for (;;) {
    int c = peekc(lx, 0);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      advance_n(lx, 1);
    } else if (c == '\n') {
      advance(lx);
    } else if (c == ';') { /* to the end of the line */
      const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
      advance_n(lx, (size_t)((nl ? nl : lx->end) - lx->p));
    } else {
      break;
    }
  }
  t->line = lx->line;
  t->col = lx->col;
  t->text = lx->p;
  t->len = 1;
  int c = peekc(lx, 0);
  switch (c) {
  case -1: t->kind = TK_EOF; t->len = 0; return TK_EOF;
  case '(': advance(lx); return t->kind = TK_LPAREN;
  case ')': advance(lx); return t->kind = TK_RPAREN;
  case '{': advance(lx); return t->kind = TK_LBRACE;
  case '}': advance(lx); return t->kind = TK_RBRACE;
  case '[': advance(lx); return t->kind = TK_LBRACKET;
  case ']': advance(lx); return t->kind = TK_RBRACKET;
  case ',': advance(lx); return t->kind = TK_COMMA;
  case ':': advance(lx); return t->kind = TK_COLON;
  case '=': advance(lx); return t->kind = TK_EQUALS;
  case '!': advance(lx); return t->kind = TK_BANG;
  case '<': advance(lx); return t->kind = TK_LANGLE;
  case '>': advance(lx); return t->kind = TK_RANGLE;
  case '"': return lex_string(lx);
  case '%': return lex_name(lx, TK_LOCAL, true);
  case '@': return lex_name(lx, TK_GLOBAL, false);
  case '$': return lex_name(lx, TK_REG, false);
  default: break;
  }
  if (is_digit(c) || c == '-' || c == '+') return lex_number(lx);
  if (is_name_start(c)) {
    lex_name(lx, TK_IDENT, false);
    return t->kind;
  }
  char b[16];
  return lex_error(lx, t->line, t->col, "unexpected %s%s", c >= 0x20 && c < 0x7f ? "character " : "",
                   show_byte(c, b));
}
