/* Internal interface of the native oracle (docs/native.md), shared by
 *
 *   native.c         preparing a module: target checks, retargeting, the host's handles in IR
 *   native_runtime.c the runtime library: compiling it, linking what a module needs of it
 *   native_launch.c  running it: shared buffers, the child process, work-groups as coroutines
 *
 * Not installed. */
#ifndef RECONV_NATIVE_INTERNAL_H
#define RECONV_NATIVE_INTERNAL_H

#include "bridge.h"
#include "reconv/native.h"

/* What the runtime library reads about the running work-item (native_rt.cl declares the same
 * fields, all 64-bit, as struct __reconv_native_wi); the host's own fields follow. */
typedef struct native_wi {
  uint64_t global_id[3], local_id[3], group_id[3], global_size[3], local_size[3],
      enqueued_local_size[3], num_groups[3];
  uint64_t work_dim, local_linear_id, local_linear_size, global_linear_id;
  /* host only */
  struct native_group *group;
} native_wi;

/* The functions of the prepared module the host calls or provides. */
#define NATIVE_ENTRY "__reconv_native_entry"             /* void (i64 *slots): runs the kernel */
#define NATIVE_SET_SELF "__reconv_native_set_self"       /* void (i8 *wi): the running work-item */
#define NATIVE_ZERO_LOCALS "__reconv_native_zero_locals" /* void (): __local variables to 0 */
#define NATIVE_SELF "__reconv_native_self"               /* the runtime's accessor of the above */
#define NATIVE_SITE "__reconv_native_site"               /* i64 (): the barrier being called */
#define NATIVE_HOOK_BARRIER "__reconv_native_barrier"    /* void (wi *, i64 site) */
#define NATIVE_HOOK_UNSUPPORTED "__reconv_native_unsupported" /* void (wi *, i8 *name) */

/* How a parameter's value goes into its slot. */
typedef enum native_pkind { NP_INT, NP_FLOAT, NP_DOUBLE, NP_PTR } native_pkind;

typedef struct native_param {
  char *name;    /* the reconv kernel's name of it, which the run specification uses */
  native_pkind kind;
  unsigned bits; /* integers */
} native_param;

/* A compiled part of the runtime library (native_rt.cl, native_rt_convert.cl), with what a module
 * needs to link only the functions it uses. */
typedef struct native_lib {
  char *bc;        /* bitcode, without debug info; NULL: not compiled */
  size_t len;
  char **defs;     /* the functions it defines ... */
  uint32_t ndefs;
  uint32_t *dep_start, *deps; /* ... defs[i] refers to defs[deps[dep_start[i] .. dep_start[i + 1])] */
  char **decls;    /* the functions it declares: the C library's and the host's hooks */
  uint32_t ndecls;
  uint32_t to;     /* conversions: the destination types compiled in (bit i: native_conv_types[i]) */
} native_lib;

typedef RC_VEC(char *) native_names;

struct rc_native {
  rc_ctx *ctx;
  char *path;
  char *kernel;   /* the LLVM function's name */
  char *triple;   /* the module's own target, for sharing the runtime library */
  LLVMContextRef lctx;
  LLVMModuleRef mod; /* retargeted to the host, runtime linked in, entry wrapper added */
  bridge_diags diags;
  native_param *params;
  uint32_t nparams;
  bool has_barrier; /* work-items may wait for their group: run them as coroutines */
  char **sites;     /* the barrier calls, numbered from 1: "@k, block %loop" */
  uint32_t nsites;
  /* the compiled runtime library, kept for rc_native_open's `share` */
  native_lib rt;
  native_lib conv; /* the conversions, compiled when the module calls one */
};

/* Make m a module of the host (native.c): triple, data layout, no CPU of its own. */
void native_retarget(LLVMModuleRef m, const char *triple, const char *layout);
/* Compile (or take from `share`) the runtime library and link into n->mod the functions its
 * declarations need (native_runtime.c); the library's own declarations, which the process provides,
 * are put into `host` (names owns the strings). Returns 0 or -1 after reporting. */
int native_add_runtime(rc_native *n, const rc_native *share, const char *triple, const char *layout,
                       rc_strmap *host, native_names *names);
void native_lib_free(native_lib *l);

#endif
