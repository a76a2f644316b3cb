/* Fibers for the native runs' barriers (host_fiber.h says why they are not ucontext's on x86-64). */
#define _DEFAULT_SOURCE
#include "host_fiber.h"

#include <string.h>

void host_fiber_init_self(host_fiber *self) {
  memset(self, 0, sizeof *self);
}

#ifdef HOST_FIBER_ASM

/* rc_host_fiber_swap(save, load): push the callee-saved registers, MXCSR and the x87 control word on
 * the current stack, store the stack pointer at *save, continue on the stack `load` points into,
 * popping what was pushed there. A new fiber's stack is made to look like one that was left here:
 * its "return address" is rc_host_fiber_entry, which calls r13(r12) = fiber_main(f). */
void rc_host_fiber_swap(void **save, void *load);
void rc_host_fiber_entry(void);

__asm__(".text\n"
        ".p2align 4\n"
        ".globl rc_host_fiber_swap\n"
        ".hidden rc_host_fiber_swap\n"
        ".type rc_host_fiber_swap, @function\n"
        "rc_host_fiber_swap:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size rc_host_fiber_swap, .-rc_host_fiber_swap\n"
        ".p2align 4\n"
        ".globl rc_host_fiber_entry\n"
        ".hidden rc_host_fiber_entry\n"
        ".type rc_host_fiber_entry, @function\n"
        "rc_host_fiber_entry:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size rc_host_fiber_entry, .-rc_host_fiber_entry\n"
        ".section .note.GNU-stack,\"\",@progbits\n"
        ".text\n");

static void fiber_main(host_fiber *f) {
  f->entry(f->arg);
  host_fiber_leave(f, f->back);
}

void host_fiber_start(host_fiber *f, uint8_t *stack, size_t size, host_fiber *back, void (*entry)(void *arg),
                      void *arg) {
  f->entry = entry;
  f->arg = arg;
  f->back = back;
  /* the frame rc_host_fiber_swap pops, from the lowest address: MXCSR and the x87 control word at
   * their initial values (the ABI's), r15, r14, r13 = fiber_main, r12 = f, rbx, rbp, the return
   * address; the top 16-byte aligned, so that rc_host_fiber_entry calls with an aligned stack */
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *frame = (uint64_t *)(top - 8 * sizeof(uint64_t));
  frame[0] = 0x1f80u | (uint64_t)0x037fu << 32;
  frame[1] = 0, frame[2] = 0;
  void (*main_fn)(host_fiber *) = fiber_main;
  void (*entry_fn)(void) = rc_host_fiber_entry;
  memcpy(&frame[3], &main_fn, sizeof main_fn);
  frame[4] = (uint64_t)(uintptr_t)f;
  frame[5] = 0, frame[6] = 0;
  memcpy(&frame[7], &entry_fn, sizeof entry_fn);
  f->sp = frame;
}

void host_fiber_switch(host_fiber *from, host_fiber *to) {
  rc_host_fiber_swap(&from->sp, to->sp);
}

_Noreturn void host_fiber_leave(host_fiber *from, host_fiber *to) {
  rc_host_fiber_swap(&from->sp, to->sp);
  __builtin_unreachable(); /* nothing switches to an abandoned fiber */
}

#else /* ucontext's fibers */

/* makecontext passes ints: the fiber's address in two halves. */
static void fiber_main(int hi, int lo) {
  host_fiber *f = (host_fiber *)(uintptr_t)((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
  f->entry(f->arg); /* then uc_link resumes f->back */
}

void host_fiber_start(host_fiber *f, uint8_t *stack, size_t size, host_fiber *back, void (*entry)(void *arg),
                      void *arg) {
  f->entry = entry;
  f->arg = arg;
  f->back = back;
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = stack;
  f->uc.uc_stack.ss_size = size;
  f->uc.uc_link = &back->uc;
  uint64_t p = (uint64_t)(uintptr_t)f;
  makecontext(&f->uc, (void (*)(void))fiber_main, 2, (int)(uint32_t)(p >> 32), (int)(uint32_t)p);
}

/* swapcontext spelt with getcontext and setcontext: AddressSanitizer intercepts swapcontext and
 * warns on standard error at its first call, which would end up in reconv's output. */
void host_fiber_switch(host_fiber *from, host_fiber *to) {
  volatile int resumed = 0;
  getcontext(&from->uc);
  if (resumed) return; /* someone switched back to `from` */
  resumed = 1;
  setcontext(&to->uc);
}

_Noreturn void host_fiber_leave(host_fiber *from, host_fiber *to) {
  (void)from;
  setcontext(&to->uc);
  __builtin_unreachable();
}

#endif
