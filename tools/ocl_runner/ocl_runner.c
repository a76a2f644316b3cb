/* reconv-ocl-runner: run one OpenCL C kernel on pocl for reconv's comparisons (the pocl row of
 * `reconv compare --native`, src/compare/pocl.c), as a program of its own, so that pocl's LLVM and
 * reconv's never meet in one process (src/compare/ocl_request.h says why).
 *
 *   reconv-ocl-runner FD
 *
 * FD is a shared memory file holding an ocl_request and the buffers' bytes. The runner loads the
 * OpenCL library (dlopen: nothing is linked), picks pocl's platform, builds the source with the
 * request's options, sets the arguments (buffers from the file, local memory by its size, scalars
 * by their bytes), runs the kernel 1 + repeat times with the event profile on (every run after the
 * first on the initial buffers again), and writes the first run's buffers, the first and fastest
 * run's nanoseconds and a status into the file. Exit status 0; the status in the file says whether
 * the kernel ran. */
#define _DEFAULT_SOURCE /* setenv */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "../../src/compare/ocl_request.h"

#include <CL/cl.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct opencl_api {
  __typeof__(clGetPlatformIDs) *GetPlatformIDs;
  __typeof__(clGetPlatformInfo) *GetPlatformInfo;
  __typeof__(clGetDeviceIDs) *GetDeviceIDs;
  __typeof__(clCreateContext) *CreateContext;
  __typeof__(clCreateCommandQueue) *CreateCommandQueue;
  __typeof__(clCreateProgramWithSource) *CreateProgramWithSource;
  __typeof__(clBuildProgram) *BuildProgram;
  __typeof__(clGetProgramBuildInfo) *GetProgramBuildInfo;
  __typeof__(clCreateKernel) *CreateKernel;
  __typeof__(clCreateBuffer) *CreateBuffer;
  __typeof__(clSetKernelArg) *SetKernelArg;
  __typeof__(clEnqueueWriteBuffer) *EnqueueWriteBuffer;
  __typeof__(clEnqueueReadBuffer) *EnqueueReadBuffer;
  __typeof__(clEnqueueNDRangeKernel) *EnqueueNDRangeKernel;
  __typeof__(clWaitForEvents) *WaitForEvents;
  __typeof__(clGetEventProfilingInfo) *GetEventProfilingInfo;
  __typeof__(clReleaseEvent) *ReleaseEvent;
} opencl_api;

static ocl_request *req;

static _Noreturn void end_with(int32_t status, const char *fmt, va_list ap) {
  vsnprintf(req->message, sizeof req->message, fmt, ap);
  req->status = status;
  exit(0);
}

static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void missing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The kernel did not run: pocl refused it or failed. */
static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  end_with(OCL_FAILED, fmt, ap);
}

/* This machine has no OpenCL library or no pocl: the row cannot be measured here, which is not
 * the kernel's failure. */
static void missing(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  end_with(OCL_UNAVAILABLE, fmt, ap);
}

/* A function of the OpenCL library (dlsym's object pointer as a function pointer: POSIX allows it). */
static void load(void *lib, const char *name, void *field) {
  void *f = dlsym(lib, name);
  if (!f) missing("the OpenCL library has no %s", name);
  memcpy(field, &f, sizeof f);
}

static void load_api(opencl_api *cl) {
  void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) missing("no OpenCL library (libOpenCL.so.1; Debian: ocl-icd-libopencl1 and pocl-opencl-icd)");
  load(lib, "clGetPlatformIDs", &cl->GetPlatformIDs);
  load(lib, "clGetPlatformInfo", &cl->GetPlatformInfo);
  load(lib, "clGetDeviceIDs", &cl->GetDeviceIDs);
  load(lib, "clCreateContext", &cl->CreateContext);
  load(lib, "clCreateCommandQueue", &cl->CreateCommandQueue);
  load(lib, "clCreateProgramWithSource", &cl->CreateProgramWithSource);
  load(lib, "clBuildProgram", &cl->BuildProgram);
  load(lib, "clGetProgramBuildInfo", &cl->GetProgramBuildInfo);
  load(lib, "clCreateKernel", &cl->CreateKernel);
  load(lib, "clCreateBuffer", &cl->CreateBuffer);
  load(lib, "clSetKernelArg", &cl->SetKernelArg);
  load(lib, "clEnqueueWriteBuffer", &cl->EnqueueWriteBuffer);
  load(lib, "clEnqueueReadBuffer", &cl->EnqueueReadBuffer);
  load(lib, "clEnqueueNDRangeKernel", &cl->EnqueueNDRangeKernel);
  load(lib, "clWaitForEvents", &cl->WaitForEvents);
  load(lib, "clGetEventProfilingInfo", &cl->GetEventProfilingInfo);
  load(lib, "clReleaseEvent", &cl->ReleaseEvent);
}

static cl_platform_id pocl_platform(const opencl_api *cl) {
  cl_platform_id ps[16];
  cl_uint n = 0;
  if (cl->GetPlatformIDs(16, ps, &n) != CL_SUCCESS || n == 0) missing("no OpenCL platform is installed (Debian: pocl-opencl-icd)");
  char names[400] = "";
  for (cl_uint i = 0; i < n && i < 16; i++) {
    char name[200] = "";
    cl->GetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strstr(name, "Portable Computing Language") || strstr(name, "pocl")) return ps[i];
    size_t used = strlen(names);
    snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
  }
  missing("no pocl platform among the OpenCL platforms installed (%s)", names);
}

static char *read_source(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail("cannot read %s", path);
  size_t cap = 1 << 16, len = 0;
  char *s = malloc(cap);
  for (size_t got; s && (got = fread(s + len, 1, cap - len - 1, f)) > 0;) {
    len += got;
    if (len + 1 == cap) s = realloc(s, cap *= 2);
  }
  fclose(f);
  if (!s) fail("no memory for the source");
  s[len] = 0;
  return s;
}

int main(int argc, char **argv) {
  if (argc != 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    fprintf(stderr, "usage: %s FD (run by reconv: src/compare/pocl.c)\n", argv[0]);
    return argc == 2 ? 0 : 2;
  }
  int fd = atoi(argv[1]);
  ocl_request head;
  if (pread(fd, &head, sizeof head, 0) != (ssize_t)sizeof head || head.magic != OCL_REQUEST_MAGIC ||
      head.version != OCL_REQUEST_VERSION) {
    fprintf(stderr, "%s: file %d holds no request of this reconv\n", argv[0], fd);
    return 2;
  }
  uint8_t *file = mmap(NULL, head.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (file == MAP_FAILED) return 2;
  req = (ocl_request *)file;
  char threads[16];
  snprintf(threads, sizeof threads, "%u", req->threads ? req->threads : 1);
  setenv("POCL_CPU_MAX_CU_COUNT", threads, 1); /* pocl's pthread device: worker threads */
  setenv("POCL_MAX_PTHREAD_COUNT", threads, 1); /* (its name before pocl 1.6) */

  opencl_api cl;
  load_api(&cl);
  cl_platform_id platform = pocl_platform(&cl);
  cl_device_id dev;
  if (cl.GetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) fail("pocl has no device");
  cl_int err;
  cl_context ctx = cl.CreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) fail("pocl cannot make a context (error %d)", err);
  cl_command_queue q = cl.CreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) fail("pocl cannot make a command queue (error %d)", err);
  /* no contraction of a * b + c into a fused multiply-add (OpenCL C allows it, and clang does it
   * where the CPU has FMA): the arithmetic of reconv's interpreter and of the other rows, so that
   * the rows compare the same computation; a pragma in front of the source says so for all of it */
  const char *srcs[2] = {"#pragma OPENCL FP_CONTRACT OFF\n", read_source(req->source)};
  cl_program prog = cl.CreateProgramWithSource(ctx, 2, srcs, NULL, &err);
  if (err != CL_SUCCESS) fail("pocl cannot take the source (error %d)", err);
  if (cl.BuildProgram(prog, 1, &dev, req->options, NULL, NULL) != CL_SUCCESS) {
    char log[600] = "";
    cl.GetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    for (char *p = log; *p; p++)
      if (*p == '\n') *p = ' ';
    fail("pocl cannot build it: %s", log);
  }
  cl_kernel kern = cl.CreateKernel(prog, req->kernel, &err);
  if (err != CL_SUCCESS) fail("pocl finds no kernel %s (error %d)", req->kernel, err);
  cl_mem mems[OCL_MAX_ARGS] = {0};
  for (uint32_t a = 0; a < req->nargs && a < OCL_MAX_ARGS; a++) {
    const ocl_arg *x = &req->args[a];
    if (x->kind == OCL_ARG_BUFFER) {
      mems[a] = cl.CreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x->size ? x->size : 1, file + x->offset, &err);
      if (err != CL_SUCCESS) fail("pocl cannot make the buffer of argument %u (error %d)", a, err);
      err = cl.SetKernelArg(kern, a, sizeof mems[a], &mems[a]);
    } else if (x->kind == OCL_ARG_LOCAL) {
      err = cl.SetKernelArg(kern, a, x->size ? x->size : 1, NULL);
    } else {
      err = cl.SetKernelArg(kern, a, x->size, x->value);
    }
    if (err != CL_SUCCESS) fail("pocl refuses argument %u (error %d)", a, err);
  }
  /* the initial buffers, for the runs after the first */
  uint8_t **initial = calloc(req->nargs + 1, sizeof *initial);
  for (uint32_t a = 0; initial && a < req->nargs; a++)
    if (mems[a] && (initial[a] = malloc(req->args[a].size + 1))) memcpy(initial[a], file + req->args[a].offset, req->args[a].size);
  size_t global[3], local[3];
  for (int d = 0; d < 3; d++) global[d] = req->global[d], local[d] = req->local[d];
  uint64_t best = UINT64_MAX;
  for (uint32_t run = 0; run <= req->repeat; run++) {
    for (uint32_t a = 0; run > 0 && a < req->nargs; a++)
      if (mems[a] && initial && initial[a])
        cl.EnqueueWriteBuffer(q, mems[a], CL_TRUE, 0, req->args[a].size, initial[a], 0, NULL, NULL);
    cl_event ev;
    err = cl.EnqueueNDRangeKernel(q, kern, req->dims, NULL, global, local, 0, NULL, &ev);
    if (err != CL_SUCCESS) fail("pocl cannot launch the kernel (error %d)", err);
    cl.WaitForEvents(1, &ev);
    cl_ulong t0 = 0, t1 = 0;
    cl.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    cl.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    cl.ReleaseEvent(ev);
    uint64_t dt = t1 > t0 ? t1 - t0 : 0;
    if (run == 0) req->first_ns = dt;
    if (dt < best) best = dt;
    for (uint32_t a = 0; run == 0 && a < req->nargs; a++) /* the first run's memory is the result */
      if (mems[a]) cl.EnqueueReadBuffer(q, mems[a], CL_TRUE, 0, req->args[a].size, file + req->args[a].offset, 0, NULL, NULL);
  }
  req->best_ns = best;
  req->runs = req->repeat + 1;
  req->status = OCL_RAN;
  return 0;
}
