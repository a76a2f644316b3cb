/* Library-internal entry points of the IR, shared by the files of src/ir and not public. */
#ifndef RECONV_IR_INTERNAL_H
#define RECONV_IR_INTERNAL_H

#include "reconv/ir.h"

/* The block named `name`, or a new one with that name appended to the kernel (*created tells
 * which), in one probe of the kernel's name map. For the parser, whose forward references create
 * blocks; a block that exists costs a block-sized allocation left to the arena. */
rc_block *rc_block_find_or_new_(rc_kernel *k, const char *name, bool *created);

/* Do the types of a call of builtin b fit its spec (include/reconv/ir.h, "Types in a spec") and its
 * modifiers the builtin? result: the call's type; args: its nargs operands (nargs already checked
 * against the builtin's). On failure writes the reason into why. (builtin_check.c) */
bool rc_builtin_check(const rc_module *m, rc_builtin b, rc_type result, rc_value *const *args,
                      int64_t imm, char *why, size_t whylen);

/* Copy the instructions of k's blocks into the (empty) blocks bmap[b] of kernel nk, mapping k's
 * values through map (indexed by value id; k's parameters must be mapped already) and k's blocks
 * through bmap. (module.c; rc_kernel_clone and rc_inline_call use it) */
void ir_copy_body(rc_kernel *nk, const rc_kernel *k, rc_value **map, rc_block *const *bmap);

#endif
