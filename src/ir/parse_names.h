/* Name and constant resolution for the .rir parser (private to src/ir/parser.c and
 * src/ir/parse_names.c). */
#ifndef RECONV_PARSE_NAMES_H
#define RECONV_PARSE_NAMES_H

#include "reconv/ir.h"

typedef struct recent_entry {
  uint32_t hash, gen; /* gen: the kernel the entry belongs to (0 = empty) */
  void *obj;          /* rc_block * or rc_value * */
} recent_entry;

typedef struct const_entry {
  uint32_t gen; /* the kernel (0 = empty) */
  uint32_t type;
  uint64_t bits;
  rc_value *v;
} const_entry;

/* The names of the kernel being parsed: its blocks and values (kept in the kernel's own maps,
 * with caches in front), the %123 names the IR does not keep, and shared constants. */
typedef struct parse_names {
  rc_module *m;
  rc_kernel *k;
  uint32_t gen;       /* kernels begun so far */
  rc_strmap numbered; /* "123" -> value, for %123 names */
  recent_entry *recent_blocks, *recent_values;
  const_entry *consts;
  /* value names defined since the last names_flush_values, not yet in the kernel's map */
  RC_VEC(const char *) pend_names;
  RC_VEC(void *) pend_values;
  RC_VEC(uint64_t) pend_pos; /* line << 32 | col of each definition */
} parse_names;

void names_init(parse_names *n, rc_module *m);
void names_free(parse_names *n);
/* Start on kernel k: the names of the previous kernel are forgotten. */
void names_begin_kernel(parse_names *n, rc_kernel *k);
/* The block called `name`, created when there is none (*created says which). */
rc_block *names_block(parse_names *n, const char *name, bool *created);
/* The value a %name refers to, or NULL: not defined yet, or (while definitions are pending) not
 * among the recent names; the caller then resolves it after names_flush_values. */
rc_value *names_value(parse_names *n, const char *name);
/* Give v the name written in the text at line:col; false when the kernel has it already. A
 * named (not numbered) definition is only checked by the next names_flush_values. */
bool names_define_value(parse_names *n, const char *name, rc_value *v, uint32_t line, uint32_t col);
/* Enter the pending value names into the kernel's map. Returns true when all were new; otherwise
 * stores the first repeated definition's name and position and returns false. */
bool names_flush_values(parse_names *n, const char **dup, uint32_t *line, uint32_t *col);
/* A constant of type t (equal constants of a kernel are one object). */
rc_value *names_int_const(parse_names *n, rc_type t, int64_t value);
rc_value *names_float_const(parse_names *n, rc_type t, double value);

#endif
