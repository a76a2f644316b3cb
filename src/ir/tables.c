/* Static facts about types, opcodes and comparison predicates (builtins: src/ir/builtins.c). */
#include "reconv/ir.h"

#include <string.h>

static const char *const type_names[RC_TYPE_COUNT] = {
    "void", "i1", "i8", "i16", "i32", "i64", "f32", "f64", "ptr", "mask", "f16",
};

const char *rc_type_name(rc_type t) {
  return t < RC_TYPE_COUNT ? type_names[t] : "?";
}

static const char *const opcode_names[RC_OP_COUNT] = {
    [RC_OP_NONE] = "<none>",
    [RC_OP_ADD] = "add", [RC_OP_SUB] = "sub", [RC_OP_MUL] = "mul", [RC_OP_SDIV] = "sdiv",
    [RC_OP_UDIV] = "udiv", [RC_OP_SREM] = "srem", [RC_OP_UREM] = "urem", [RC_OP_AND] = "and",
    [RC_OP_OR] = "or", [RC_OP_XOR] = "xor", [RC_OP_ANDN] = "andn", [RC_OP_SHL] = "shl",
    [RC_OP_LSHR] = "lshr", [RC_OP_ASHR] = "ashr",
    [RC_OP_FADD] = "fadd", [RC_OP_FSUB] = "fsub", [RC_OP_FMUL] = "fmul", [RC_OP_FDIV] = "fdiv",
    [RC_OP_FREM] = "frem", [RC_OP_FNEG] = "fneg",
    [RC_OP_ICMP] = "icmp", [RC_OP_FCMP] = "fcmp", [RC_OP_SELECT] = "select",
    [RC_OP_TRUNC] = "trunc", [RC_OP_ZEXT] = "zext", [RC_OP_SEXT] = "sext",
    [RC_OP_FPTRUNC] = "fptrunc", [RC_OP_FPEXT] = "fpext", [RC_OP_FPTOSI] = "fptosi",
    [RC_OP_FPTOUI] = "fptoui", [RC_OP_SITOFP] = "sitofp", [RC_OP_UITOFP] = "uitofp",
    [RC_OP_PTRTOINT] = "ptrtoint", [RC_OP_INTTOPTR] = "inttoptr", [RC_OP_BITCAST] = "bitcast",
    [RC_OP_ADDRSPACECAST] = "addrspacecast",
    [RC_OP_LOAD] = "load", [RC_OP_STORE] = "store", [RC_OP_GEP] = "gep",
    [RC_OP_ALLOCA] = "alloca", [RC_OP_LOCALMEM] = "localmem",
    [RC_OP_CALL] = "call", [RC_OP_PHI] = "phi",
    [RC_OP_FREEZE] = "freeze", [RC_OP_EXTRACTELT] = "extractelement",
    [RC_OP_INSERTELT] = "insertelement", [RC_OP_SHUFFLE] = "shufflevector",
    [RC_OP_EXTRACTVAL] = "extractvalue", [RC_OP_INSERTVAL] = "insertvalue",
    [RC_OP_CALLFN] = "call", /* spelled like a builtin call; rc_opcode_lookup finds RC_OP_CALL */
    [RC_OP_OPAQUE] = "opaque",
    [RC_OP_BALLOT] = "ballot", [RC_OP_EXEC] = "exec", [RC_OP_SETEXEC] = "setexec",
    [RC_OP_RGET] = "rget", [RC_OP_RSET] = "rset",
    [RC_OP_BR] = "br", [RC_OP_JMP] = "jmp", [RC_OP_SWITCH] = "switch", [RC_OP_RET] = "ret",
    [RC_OP_UNREACHABLE] = "unreachable", [RC_OP_BREXECZ] = "brexecz",
};

const char *rc_opcode_name(rc_opcode op) {
  return op < RC_OP_COUNT && opcode_names[op] ? opcode_names[op] : "?";
}

/* Is the word of n bytes at s exactly `name`? (The parser asks this for every identifier, so no
 * strlen: compare the first byte, then the rest.) */
static bool word_is(const char *s, size_t n, const char *name) {
  return name && n && name[0] == s[0] && strncmp(name, s, n) == 0 && name[n] == 0;
}

int rc_opcode_lookup(const char *s, size_t n) {
  for (int op = 1; op < RC_OP_COUNT; op++)
    if (word_is(s, n, opcode_names[op])) return op;
  return -1;
}

int rc_type_lookup(const char *s, size_t n) {
  for (int t = 0; t < RC_TYPE_COUNT; t++)
    if (word_is(s, n, type_names[t])) return t;
  return -1;
}

bool rc_opcode_is_int_binop(rc_opcode op) {
  return op >= RC_OP_ADD && op <= RC_OP_ASHR;
}

bool rc_opcode_is_float_binop(rc_opcode op) {
  return op >= RC_OP_FADD && op <= RC_OP_FREM;
}

bool rc_opcode_is_cast(rc_opcode op) {
  return op >= RC_OP_TRUNC && op <= RC_OP_ADDRSPACECAST;
}

static const char *const cmp_names[RC_CMP_COUNT] = {
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
    "oeq", "one", "olt", "ole", "ogt", "oge", "ord",
    "ueq", "une", "ult", "ule", "ugt", "uge", "uno", "true", "false",
};

const char *rc_cmp_name(rc_cmp c) {
  return c < RC_CMP_COUNT ? cmp_names[c] : "?";
}

bool rc_cmp_is_float(rc_cmp c) {
  return c >= RC_CMP_OEQ && c < RC_CMP_COUNT;
}

rc_cmp rc_cmp_inverse(rc_cmp c) {
  static const rc_cmp inverse[RC_CMP_COUNT] = {
      [RC_CMP_EQ] = RC_CMP_NE,     [RC_CMP_NE] = RC_CMP_EQ,     [RC_CMP_SLT] = RC_CMP_SGE,
      [RC_CMP_SLE] = RC_CMP_SGT,   [RC_CMP_SGT] = RC_CMP_SLE,   [RC_CMP_SGE] = RC_CMP_SLT,
      [RC_CMP_ULT] = RC_CMP_UGE,   [RC_CMP_ULE] = RC_CMP_UGT,   [RC_CMP_UGT] = RC_CMP_ULE,
      [RC_CMP_UGE] = RC_CMP_ULT,   [RC_CMP_OEQ] = RC_CMP_UNE,   [RC_CMP_ONE] = RC_CMP_UEQ,
      [RC_CMP_OLT] = RC_CMP_FUGE,  [RC_CMP_OLE] = RC_CMP_FUGT,  [RC_CMP_OGT] = RC_CMP_FULE,
      [RC_CMP_OGE] = RC_CMP_FULT,  [RC_CMP_ORD] = RC_CMP_UNO,   [RC_CMP_UEQ] = RC_CMP_ONE,
      [RC_CMP_UNE] = RC_CMP_OEQ,   [RC_CMP_FULT] = RC_CMP_OGE,  [RC_CMP_FULE] = RC_CMP_OGT,
      [RC_CMP_FUGT] = RC_CMP_OLE,  [RC_CMP_FUGE] = RC_CMP_OLT,  [RC_CMP_UNO] = RC_CMP_ORD,
      [RC_CMP_FTRUE] = RC_CMP_FFALSE, [RC_CMP_FFALSE] = RC_CMP_FTRUE,
  };
  return c < RC_CMP_COUNT ? inverse[c] : c;
}

int rc_cmp_lookup(const char *s, size_t n, bool is_float) {
  for (int c = 0; c < RC_CMP_COUNT; c++)
    if (rc_cmp_is_float((rc_cmp)c) == is_float && word_is(s, n, cmp_names[c])) return c;
  return -1;
}

/* The builtins are in src/ir/builtins.c. */
