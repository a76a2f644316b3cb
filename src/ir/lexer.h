/* The .rir lexer (private to the parser). Works on any bytes, bounded by a length. */
#ifndef RECONV_LEXER_H
#define RECONV_LEXER_H

#include "reconv/base.h"

#define LEX_MAX_NAME 1024 /* longest name (identifier, %value, @kernel, $register) */

typedef enum tok_kind {
  TK_EOF,
  TK_IDENT,  /* keyword, opcode, type, label: [A-Za-z_.][A-Za-z0-9_.]* */
  TK_LOCAL,  /* %name or %123 */
  TK_GLOBAL, /* @name */
  TK_REG,    /* $name */
  TK_INT,
  TK_FLOAT,
  TK_STRING,
  TK_LPAREN, TK_RPAREN, TK_LBRACE, TK_RBRACE, TK_LBRACKET, TK_RBRACKET,
  TK_COMMA, TK_COLON, TK_EQUALS, TK_BANG, TK_LANGLE, TK_RANGLE,
  TK_ERROR   /* the lexer reported an error */
} tok_kind;

typedef struct token {
  tok_kind kind;
  const char *text; /* start in the source; for LOCAL/GLOBAL/REG after the sigil */
  size_t len;
  uint32_t line, col;
  int64_t ival;     /* TK_INT */
  bool negative;    /* TK_INT: written with a minus sign */
  double fval;      /* TK_FLOAT (also set for TK_INT) */
  char *str;        /* TK_STRING: decoded, heap (owned by the lexer, freed on next string) */
} token;

typedef struct lexer {
  rc_ctx *ctx;
  const char *file;
  const char *p, *end;
  uint32_t line, col;
  token tok;        /* current token */
  char *strbuf;
  /* Called before a lexical error is reported; when it returns true it has reported an earlier
   * error itself (the parser's deferred name checks) and the lexer's is dropped. */
  bool (*before_error)(void *user);
  void *before_error_user;
} lexer;

void lex_init(lexer *lx, rc_ctx *ctx, const char *file, const char *text, size_t len);
void lex_free(lexer *lx);
/* Advance to the next token; returns its kind (TK_ERROR after reporting). */
tok_kind lex_next(lexer *lx);
/* Describe a token for messages ("identifier 'foo'", "end of file", ...). */
void lex_describe(const token *t, char *buf, size_t size);

#endif
