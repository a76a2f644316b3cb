/* Library-internal entry points of the IR, shared by the files of src/ir and not public. */
#ifndef RECONV_IR_INTERNAL_H
#define RECONV_IR_INTERNAL_H

#include "reconv/ir.h"

/* The block named `name`, or a new one with that name appended to the kernel (*created tells
 * which), in one probe of the kernel's name map. For the parser, whose forward references create
 * blocks; a block that exists costs a block-sized allocation left to the arena. */
rc_block *rc_block_find_or_new_(rc_kernel *k, const char *name, bool *created);

#endif
