/* Fibers for the native runs' barriers: a wave (src/native/wave_runtime.c) or a work-item
 * (native_launch.c) that waits at a barrier switches back to its group's scheduler, on a stack of
 * its own (host_child_stacks).
 *
 * A barrier is a switch there and back, so its cost is the switch's: swapcontext (and getcontext +
 * setcontext) saves and restores the signal mask with a system call each time, which made a kernel
 * with a barrier in a loop spend most of its time in the kernel (bitonic: 4.5 us per work-item at
 * W=16, pocl 60 ns). On x86-64 a switch here is a few instructions that save the registers the
 * System V ABI says a call keeps (rbx, rbp, r12-r15, MXCSR, the x87 control word) and move the
 * stack pointer; the signal mask never changes in these runs. Elsewhere, and in sanitizer builds
 * (AddressSanitizer follows ucontext's switches, not ours), the fibers are ucontext's. */
#ifndef RECONV_HOST_FIBER_H
#define RECONV_HOST_FIBER_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define HOST_FIBER_ASM 1
#endif
#else
#define HOST_FIBER_ASM 1
#endif
#endif

typedef struct host_fiber {
  void *sp;                    /* HOST_FIBER_ASM: the stack pointer it was left at */
  void (*entry)(void *arg);
  void *arg;
  struct host_fiber *back;     /* where it goes when entry returns */
#ifndef HOST_FIBER_ASM
  ucontext_t uc;
#endif
} host_fiber;

/* The scheduler's own fiber (the stack it runs on) needs nothing but to exist. */
void host_fiber_init_self(host_fiber *self);
/* A fiber that, once switched to, runs entry(arg) on [stack, stack + size) and then switches to
 * back (and never runs again unless started again). */
void host_fiber_start(host_fiber *f, uint8_t *stack, size_t size, host_fiber *back, void (*entry)(void *arg),
                      void *arg);
/* Leave `from` (it resumes here when something switches to it) for `to`. */
void host_fiber_switch(host_fiber *from, host_fiber *to);
/* Go to `to` for good: `from`'s stack is abandoned (a fault leaving its wave). */
_Noreturn void host_fiber_leave(host_fiber *from, host_fiber *to);

#endif
