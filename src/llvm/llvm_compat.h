/* The few places where LLVM's C API differs between the versions reconv supports (14 … 19):
 * one name per operation, defined for the LLVM the library is compiled against. LLVM 15 renamed
 * the element access of constant aggregates (LLVMGetElementAsConstant, deprecated since);
 * LLVM 16 replaced the function attributes readnone/readonly/... by one integer attribute,
 * memory(...), whose value 0 means memory(none). */
#ifndef RECONV_LLVM_COMPAT_H
#define RECONV_LLVM_COMPAT_H

#include <llvm-c/Core.h>
#include <llvm/Config/llvm-config.h>

/* Element i of a constant array, vector or struct (ConstantDataSequential included). */
static inline LLVMValueRef rc_llvm_aggregate_element(LLVMValueRef c, unsigned i) {
#if LLVM_VERSION_MAJOR >= 15
  return LLVMGetAggregateElement(c, i);
#else
  return LLVMGetElementAsConstant(c, i);
#endif
}

/* The attribute kind that says whether a function touches memory: readnone before LLVM 16, memory
 * since (memory(none) being the value 0). */
static inline unsigned rc_llvm_memory_attr_kind(void) {
#if LLVM_VERSION_MAJOR >= 16
  return LLVMGetEnumAttributeKindForName("memory", 6);
#else
  return LLVMGetEnumAttributeKindForName("readnone", 8);
#endif
}

/* The attribute that says a function neither reads nor writes memory. */
static inline LLVMAttributeRef rc_llvm_readnone_attr(LLVMContextRef c) {
  return LLVMCreateEnumAttribute(c, rc_llvm_memory_attr_kind(), 0);
}

/* Is `a` (an attribute of kind rc_llvm_memory_attr_kind(), or NULL) the one that says readnone? */
static inline int rc_llvm_attr_is_readnone(LLVMAttributeRef a) {
  return a != NULL && LLVMGetEnumAttributeValue(a) == 0;
}

#endif
