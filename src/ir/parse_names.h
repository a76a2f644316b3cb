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
} parse_names;

void names_init(parse_names *n, rc_module *m);
void names_free(parse_names *n);
/* Start on kernel k: the names of the previous kernel are forgotten. */
void names_begin_kernel(parse_names *n, rc_kernel *k);
/* The block called `name`, created when there is none (*created says which). */
rc_block *names_block(parse_names *n, const char *name, bool *created);
/* The value a %name refers to, or NULL. */
rc_value *names_value(parse_names *n, const char *name);
/* Give v the name written in the text; false when the kernel has it already. */
bool names_define_value(parse_names *n, const char *name, rc_value *v);
/* A constant of type t (equal constants of a kernel are one object). */
rc_value *names_int_const(parse_names *n, rc_type t, int64_t value);
rc_value *names_float_const(parse_names *n, rc_type t, double value);

#endif
