/* What reconv and its OpenCL runner (tools/ocl_runner/ocl_runner.c, the `reconv-ocl-runner`
 * program) exchange through a shared memory file: the runner builds and runs one OpenCL C kernel
 * on pocl and leaves the buffers and the times there.
 *
 * Why a program of its own: pocl (Debian 12's pocl-opencl-icd) compiles kernels with LLVM 15,
 * reconv links LLVM 14, and the two in one process resolve each other's symbols and crash. The
 * runner links nothing but the C library and loads the OpenCL library itself.
 *
 * The file holds this header, then the buffers' bytes at their offsets. Not installed. */
#ifndef RECONV_OCL_REQUEST_H
#define RECONV_OCL_REQUEST_H

#include <stdint.h>

#define OCL_REQUEST_MAGIC 0x52434f4cu /* "RCOL" */
#define OCL_REQUEST_VERSION 1u
#define OCL_MAX_ARGS 128u
#define OCL_RUNNER "reconv-ocl-runner"

enum { OCL_ARG_BUFFER, OCL_ARG_LOCAL, OCL_ARG_SCALAR };
/* ocl_request.status: ran; pocl refused or failed the kernel; no OpenCL library or pocl here */
enum { OCL_RAN = 0, OCL_FAILED = 1, OCL_UNAVAILABLE = 2 };

typedef struct ocl_arg {
  uint32_t kind;     /* OCL_ARG_* */
  uint32_t pad;
  uint64_t size;     /* bytes: of the buffer, of the local memory, of the scalar (1, 2, 4, 8) */
  uint64_t offset;   /* a buffer: where its bytes are in the file */
  uint8_t value[8];  /* a scalar: its bytes, little-endian */
} ocl_arg;

typedef struct ocl_request {
  uint32_t magic, version;
  /* in */
  uint32_t dims, nargs, repeat, threads;
  uint64_t global[3], local[3];
  char kernel[256];
  char source[4096];  /* the OpenCL C file */
  char options[4096]; /* clBuildProgram's options */
  ocl_arg args[OCL_MAX_ARGS];
  uint64_t bytes;     /* the file's size */
  /* out */
  int32_t status;     /* OCL_RAN: the buffers hold the first run's results; else message says why */
  uint32_t runs;
  uint64_t first_ns, best_ns;
  char message[1024];
} ocl_request;

#endif
