/* Parser and lexer errors: one test per class of bad input, each checking the exact
 * file:line:col and the message, and that exactly one error is reported (the parser stops at the
 * first). Also the regressions of bugs found by hand and by fuzzing (see tests/fuzz/). */
#include "reconv/ir.h"
#include "test.h"

#include <stdlib.h>

/* Parse `len` bytes; expect failure with exactly one diagnostic containing "test.rir:" + want. */
static void expect_error_bytes(const char *text, size_t len, const char *want) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_module(&d.ctx, "test.rir", text, len);
  CHECK(m == NULL);
  rc_module_free(m);
  char full[512];
  snprintf(full, sizeof full, "test.rir:%s", want);
  CHECK_STR_CONTAINS(d.text, full);
  CHECK_EQ_INT(d.ctx.nerrors, 1);
}

static void expect_error(const char *text, const char *want) {
  expect_error_bytes(text, strlen(text), want);
}

static rc_module *expect_ok(test_diags *d, const char *text) {
  test_diags_init(d);
  rc_module *m = test_parse(d, text);
  CHECK(m != NULL);
  if (!m) fprintf(stderr, "unexpected error: %s", d->text);
  return m;
}

TEST(empty_input) {
  expect_error("", "1:1: error: no kernel in the input");
  expect_error("  \n\n ; only a comment\n", "1:1: error: no kernel in the input");
}

TEST(binary_garbage) {
  static const char elf[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00";
  expect_error_bytes(elf, sizeof elf - 1, "1:1: error: unexpected byte 0x7f");
  static const char nul[] = "kernel @k() {\n\x00";
  expect_error_bytes(nul, sizeof nul - 1, "2:1: error: unexpected byte 0x00");
  static const char utf8[] = "kernel @k\xc3\xa9() {}";
  expect_error_bytes(utf8, sizeof utf8 - 1, "1:10: error: unexpected byte 0xc3");
}

TEST(binary_garbage_is_reported_not_read_past) {
  /* the text is not NUL-terminated: the lexer must stop at len (ASan checks the bound) */
  char *buf = malloc(7);
  memcpy(buf, "kernel ", 7);
  expect_error_bytes(buf, 7, "1:8: error: expected a kernel name like @main, found end of file");
  memcpy(buf, "kernel@", 7);
  expect_error_bytes(buf, 7, "1:7: error: expected a name after '@', found end of file");
  free(buf);
}

TEST(hundred_megabyte_line) {
  /* 100 MB in the normal build; smaller where RECONV_PROP_SCALE is (the sanitizer build runs at
   * 0.2, valgrind at 0.01) */
  size_t n = (size_t)test_scaled(100) << 20;
  const char *head = "kernel @k() {\nentry:\n  ret ";
  const char *tail = "@oops\n}\n";
  size_t hl = strlen(head), tl = strlen(tail);
  char *buf = malloc(hl + n + tl);
  memcpy(buf, head, hl);
  memset(buf + hl, ' ', n);
  memcpy(buf + hl + n, tail, tl);
  char want[128];
  /* "  ret " is 6 columns, then n spaces: @oops is at column 7 + n */
  snprintf(want, sizeof want, "3:%zu: error: expected an instruction, found '@oops'", (size_t)7 + n);
  expect_error_bytes(buf, hl + n + tl, want);
  /* a 100 MB comment, then an error on the next line */
  buf[hl] = ';';
  memset(buf + hl + 1, 'x', n - 2);
  buf[hl + n - 1] = '\n';
  expect_error_bytes(buf, hl + n + tl, "4:1: error: expected an instruction, found '@oops'");
  /* a 100 MB name */
  memset(buf + hl, 'a', n);
  expect_error_bytes(buf, hl + n + tl, "3:7: error: name longer than 1024 characters");
  /* and a valid 100 MB line: a run specification string */
  const char *k1 = "kernel @k() !run \"";
  const char *k2 = "\" {\nentry:\n  ret\n}\n";
  size_t l1 = strlen(k1), l2 = strlen(k2);
  memcpy(buf, k1, l1);
  memset(buf + l1, 'r', n - l1 - l2);
  memcpy(buf + n - l2, k2, l2);
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_module(&d.ctx, "test.rir", buf, n);
  CHECK(m != NULL);
  if (m) CHECK_EQ_INT(strlen(m->kernels[0]->run_spec), n - l1 - l2);
  rc_module_free(m);
  free(buf);
}

TEST(unterminated_kernel) {
  expect_error("kernel @k() {\nentry:\n  ret\n",
               "4:1: error: kernel @k is not closed: expected '}' before the end of the file");
  expect_error("kernel @k(", "1:11: error: expected a type (i1, i8, i16, i32, i64, iN, f16, f32, f64, ptr, mask, <N x T>, [N x T], {T, ...}), "
                             "found end of file");
  expect_error("kernel @k()", "1:12: error: expected '{', found end of file");
}

TEST(unterminated_block) {
  expect_error("kernel @k() {\nentry:\n  %a = add i32 1, 2\n}\n",
               "4:1: error: block entry does not end with a terminator (br, jmp, switch, ret, ...) "
               "before the end of the kernel");
  expect_error("kernel @k() {\n}\n", "2:1: error: kernel @k has no blocks");
}

TEST(missing_terminator) {
  expect_error("kernel @k() {\nentry:\n  %a = add i32 1, 2\nnext:\n  ret\n}\n",
               "4:1: error: block entry does not end with a terminator (br, jmp, switch, ret, ...) "
               "before this label");
  expect_error("kernel @k() {\nentry:\nnext:\n  ret\n}\n",
               "3:1: error: block entry does not end with a terminator (br, jmp, switch, ret, ...) "
               "before this label");
}

TEST(instruction_after_terminator) {
  expect_error("kernel @k() {\nentry:\n  ret\n  %a = add i32 1, 2\n}\n",
               "4:3: error: instruction after the terminator of block entry (start a new block with a label)");
  expect_error("kernel @k() {\n  ret\n}\n", "2:3: error: instruction before the first block label");
}

TEST(unknown_opcode) {
  expect_error("kernel @k() {\nentry:\n  %a = frobnicate i32 1, 2\n  ret\n}\n",
               "3:8: error: unknown instruction 'frobnicate'");
  expect_error("kernel @k() {\nentry:\n  retu\n}\n", "3:3: error: unknown instruction 'retu'");
}

TEST(unknown_builtin) {
  expect_error("kernel @k() {\nentry:\n  %a = call i32 @thread_id(i32 0)\n  ret\n}\n",
               "3:17: error: unknown function or builtin @thread_id");
}

TEST(duplicate_labels) {
  expect_error("kernel @k() {\nentry:\n  jmp A\nA:\n  jmp A2\nA2:\n  jmp A\n A:\n  ret\n}\n",
               "8:2: error: redefinition of block A (first defined at 4:1)");
}

TEST(redefinition_of_values) {
  expect_error("kernel @k(i32 %x) {\nentry:\n  %a = add i32 %x, 1\n  %a = add i32 %x, 2\n  ret\n}\n",
               "4:3: error: redefinition of %a");
  expect_error("kernel @k(i32 %x) {\nentry:\n  %x = add i32 1, 2\n  ret\n}\n",
               "3:3: error: redefinition of %x");
  expect_error("kernel @k(i32 %x, i64 %x) {\nentry:\n  ret\n}\n", "1:23: error: redefinition of %x");
  expect_error("kernel @k() {\nentry:\n  %0 = add i32 1, 2\n  %0 = add i32 1, 2\n  ret\n}\n",
               "4:3: error: redefinition of %0");
  expect_error("kernel @k() {\nentry:\n  ret\n}\nkernel @k() {\nentry:\n  ret\n}\n",
               "5:8: error: redefinition of kernel @k");
}

TEST(use_of_undefined_value) {
  expect_error("kernel @k() {\nentry:\n  %a = add i32 %nope, 1\n  ret\n}\n",
               "3:16: error: use of undefined value %nope");
  /* a value of another kernel is not visible */
  expect_error("kernel @a(i32 %x) {\nentry:\n  ret\n}\nkernel @b() {\nentry:\n  %y = add i32 %x, 1\n  ret\n}\n",
               "7:16: error: use of undefined value %x");
}

TEST(undefined_block) {
  expect_error("kernel @k() {\nentry:\n  jmp A\nA:\n  br true, A, Nowhere\n}\n",
               "5:15: error: use of undefined block Nowhere");
  expect_error("kernel @k() {\nentry:\n  %p = phi i32 [1, Ghost]\n  ret\n}\n",
               "3:20: error: use of undefined block Ghost");
}

TEST(type_mismatch) {
  expect_error("kernel @k() {\nentry:\n  %a = add i32 1, 2\n  %b = add i64 %a, 1\n  ret\n}\n",
               "4:16: error: %a has type i32 but is used as i64");
  /* a forward reference is checked when it is resolved, at its use */
  expect_error("kernel @k() {\nentry:\n  jmp B\nA:\n  %b = add i64 %a, 1\n  ret\nB:\n  %a = add i32 1, 2\n  jmp A\n}\n",
               "5:16: error: %a has type i32 but is used as i64");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 1.5, 2\n  ret\n}\n",
               "3:16: error: floating-point constant used as i32");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 true, 2\n  ret\n}\n",
               "3:16: error: true and false have type i1, not i32");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 null, 2\n  ret\n}\n",
               "3:16: error: null is a pointer, not i32");
  expect_error("kernel @k() {\nentry:\n  %a = add void 1, 2\n  ret\n}\n",
               "3:12: error: expected a type (i1, i8, i16, i32, i64, iN, f16, f32, f64, ptr, mask, <N x T>, [N x T], {T, ...}), found 'void'");
  expect_error("kernel @k() {\nentry:\n  %a = add ptr 1, 2\n  %b = add i32 1, undef\n  %c = fadd f32 %b, 1.0\n  ret\n}\n",
               "5:17: error: %b has type i32 but is used as f32");
  expect_error("kernel @k(ptr %p) {\nentry:\n  %s = store i32 1, %p\n  ret\n}\n",
               "3:3: error: 'store' does not produce a value");
  expect_error("kernel @k(f32 %f) {\nentry:\n  switch f32 %f, A []\nA:\n  ret\n}\n",
               "3:14: error: switch needs an integer value");
}

TEST(bad_numbers) {
  expect_error("kernel @k() {\nentry:\n  %a = add i64 18446744073709551616, 1\n  ret\n}\n",
               "3:16: error: integer '18446744073709551616' does not fit in 64 bits");
  expect_error("kernel @k() {\nentry:\n  %a = add i64 -9223372036854775809, 1\n  ret\n}\n",
               "3:16: error: integer '-9223372036854775809' does not fit in 64 bits");
  expect_error("kernel @k() {\nentry:\n  %a = add i64 0x1ffffffffffffffff, 1\n  ret\n}\n",
               "3:16: error: integer '0x1ffffffffffffffff' does not fit in 64 bits");
  expect_error("kernel @k() {\nentry:\n  %a = add i8 256, 1\n  ret\n}\n",
               "3:15: error: constant does not fit in i8");
  expect_error("kernel @k() {\nentry:\n  %a = add i8 -129, 1\n  ret\n}\n",
               "3:15: error: constant does not fit in i8");
  expect_error("kernel @k() {\nentry:\n  %a = and i1 2, 1\n  ret\n}\n",
               "3:15: error: constant does not fit in i1");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 12abc, 1\n  ret\n}\n",
               "3:16: error: malformed number: 'a' after '12'");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 0x, 1\n  ret\n}\n",
               "3:16: error: malformed hexadecimal number: ',' after '0x'");
  expect_error("kernel @k() {\nentry:\n  %a = fadd f64 1e999, 1.0\n  ret\n}\n",
               "3:17: error: floating-point number '1e999' is too large for f64");
  expect_error("kernel @k() {\nentry:\n  %a = fadd f32 1e39, 1.0\n  ret\n}\n",
               "3:17: error: constant is too large for f32");
  expect_error("kernel @k() {\nentry:\n  %a = fadd f32 -infinity, 1.0\n  ret\n}\n",
               "3:17: error: malformed number: 'i' after '-inf'");
  expect_error("kernel @k() {\nentry:\n  %a = fadd f32 -nun, 1.0\n  ret\n}\n",
               "3:17: error: malformed number: 'u' after the sign");
  expect_error("kernel @k() {\nentry:\n  %a = alloca -4\n  ret\n}\n",
               "3:15: error: expected a size in bytes, found number '-4'");
  expect_error("kernel @k(ptr %p) {\nentry:\n  %a = gep %p, i32 1, 2.5\n  ret\n}\n",
               "3:23: error: expected an integer scale, found number '2.5'");
  char longnum[600];
  memset(longnum, '7', sizeof longnum);
  char text[800];
  snprintf(text, sizeof text, "kernel @k() {\nentry:\n  %%a = add i64 %.*s, 1\n  ret\n}\n", 500, longnum);
  expect_error(text, "3:16: error: number longer than 400 characters");
}

TEST(numbers_that_parse) {
  test_diags d;
  rc_module *m = expect_ok(&d,
      "kernel @k(ptr %p) {\n"
      "entry:\n"
      "  store i32 010, %p\n"          /* decimal, not octal */
      "  store i32 0x7fffffff, %p\n"
      "  store i32 0xFFFFFFFF, %p\n"   /* an unsigned spelling of -1 */
      "  store i8 255, %p\n"
      "  store i64 -9223372036854775808, %p\n"
      "  store i64 18446744073709551615, %p\n"
      "  store i1 1, %p\n"
      "  store f32 +1.5e3, %p\n"
      "  store f64 2, %p\n"
      "  store f64 -inf, %p\n"
      "  store f64 inf, %p\n"
      "  store f32 -nan, %p\n"
      "  store ptr 0, %p\n"
      "  ret\n"
      "}\n");
  if (!m) return;
  char *s = test_print(m);
  CHECK_STR_CONTAINS(s,
      "  store i32 10, %p\n"
      "  store i32 2147483647, %p\n"
      "  store i32 -1, %p\n"
      "  store i8 -1, %p\n"
      "  store i64 -9223372036854775808, %p\n"
      "  store i64 -1, %p\n"
      "  store i1 true, %p\n"
      "  store f32 1500.0, %p\n"
      "  store f64 2.0, %p\n"
      "  store f64 -inf, %p\n"
      "  store f64 inf, %p\n"
      "  store f32 -nan, %p\n"
      "  store ptr null, %p\n");
  free(s);
  rc_module_free(m);
}

TEST(unterminated_string) {
  expect_error("kernel @k() !run \"--global 4 {\nentry:\n  ret\n}\n", "1:18: error: unterminated string");
  expect_error("kernel @k() !run \"abc", "1:18: error: unterminated string");
  expect_error("kernel @k() !run \"a\\tb\" {\nentry:\n  ret\n}\n",
               "1:21: error: unknown escape 't' in a string");
  static const char nul[] = "kernel @k() !run \"a\0b\" {\nentry:\n  ret\n}\n";
  expect_error_bytes(nul, sizeof nul - 1, "1:20: error: NUL byte in a string");
  expect_error("kernel @k() !run 42 {\nentry:\n  ret\n}\n",
               "1:18: error: expected a run specification string, found number '42'");
}

TEST(wrong_annotations) {
  expect_error("kernel @k(i1 %c) {\nentry:\n  br %c, A, A !maybe\nA:\n  ret\n}\n",
               "3:16: error: expected an annotation (!uniform, !divergent or !scalar), found 'maybe'");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 1, 2 !uniform\n  ret\n}\n",
               "3:3: error: !uniform and !divergent annotate br and switch only");
  expect_error("kernel @k(i1 %c) {\nentry:\n  br %c, A, A !uniform !divergent\nA:\n  ret\n}\n",
               "3:3: error: a branch cannot be both !uniform and !divergent");
  expect_error("kernel @k() {\nentry: !flows\n  ret\n}\n",
               "2:9: error: expected a block attribute (!flow, !guard or !virtual), found 'flows'");
  expect_error("kernel @k() !fast {\nentry:\n  ret\n}\n",
               "1:14: error: expected a kernel attribute (!run \"...\"), found 'fast'");
}

TEST(mask_type_at_thread_level) {
  expect_error("kernel @k(mask %m) {\nentry:\n  ret\n}\n",
               "1:11: error: the mask type is only allowed in wave kernels");
  expect_error("kernel @k() {\nentry:\n  %a = call mask @lane_id()\n  ret\n}\n",
               "3:13: error: the mask type is only allowed in wave kernels");
  expect_error("kernel @k() {\nentry:\n  %a = and mask 1, 2\n  ret\n}\n",
               "3:12: error: the mask type is only allowed in wave kernels");
}

TEST(wave_constructs_at_the_wrong_level) {
  expect_error("kernel @k() {\nentry:\n  %e = exec\n  ret\n}\n",
               "3:8: error: 'exec' is only allowed in wave kernels");
  expect_error("kernel @k() {\nentry:\n  brexecz A, A\nA:\n  ret\n}\n",
               "3:3: error: 'brexecz' is only allowed in wave kernels");
  expect_error("kernel @k() {\n  reg scalar i32 $r\nentry:\n  ret\n}\n",
               "2:3: error: registers are only allowed in wave kernels");
  expect_error("wave kernel @k() {\nentry:\n  %p = phi i32 [1, entry]\n  ret\n}\n",
               "3:8: error: wave kernels have no phis");
  expect_error("wave kernel @k() {\nentry:\n  %v = rget $nope\n  ret\n}\n",
               "3:13: error: unknown register $nope (declare it with `reg`)");
  expect_error("wave kernel @k() {\n  reg scalar i32 $r\n  reg vector i64 $r\nentry:\n  ret\n}\n",
               "3:18: error: redefinition of register $r");
  expect_error("wave kernel @k() {\n  reg both i32 $r\nentry:\n  ret\n}\n",
               "2:7: error: expected 'scalar' or 'vector', found 'both'");
  expect_error("wave wave kernel @k() {\nentry:\n  ret\n}\n", "1:6: error: expected 'kernel' or 'function', found 'wave'");
}

TEST(misc_syntax) {
  expect_error("kernel k() {}", "1:8: error: expected a kernel name like @main, found 'k'");
  expect_error("kernel @k() {\nentry:\n  %a add i32 1, 2\n  ret\n}\n", "3:6: error: expected '=', found 'add'");
  expect_error("kernel @k() {\nentry:\n  %a = icmp lt i32 1, 2\n  ret\n}\n",
               "3:13: error: expected an icmp predicate (eq ne slt sle sgt sge ult ule ugt uge), found 'lt'");
  expect_error("kernel @k() {\nentry:\n  %a = trunc i32 1 i8\n  ret\n}\n",
               "3:20: error: expected 'to', found 'i8'");
  expect_error("kernel @k() {\nentry:\n  jmp 5\n}\n", "3:7: error: expected a block label, found number '5'");
  expect_error("kernel @k() {\nentry:\n  ret\n}\n}\n", "5:1: error: expected 'kernel', 'function' or 'global', found '}'");
  expect_error("kernel @k() {\nentry:\n  %a = add i32 1, 2 # comment\n  ret\n}\n",
               "3:21: error: unexpected character '#'");
  expect_error("kernel @k() {\nentry:\n  %  = add i32 1, 2\n  ret\n}\n",
               "3:3: error: expected a name after '%', found ' '");
  char args[200] = "";
  for (int i = 0; i < 9; i++) strcat(args, i ? ", i32 1" : "i32 1");
  char text[400];
  snprintf(text, sizeof text, "kernel @k() {\nentry:\n  %%a = call i32 @smin(%s)\n  ret\n}\n", args);
  /* calls take any number of arguments (module functions); the verifier checks a builtin's */
  expect_error(text, "3:3: error: in kernel @k, block entry, instruction `%a = call i32 @smin(i32 1, i32 1, "
                     "i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1)`: @smin takes 2 arguments, not 9");
}

/* ---- regressions -------------------------------------------------------------------------------- */

TEST(regression_label_named_like_a_keyword) {
  /* `reg:` as the first block of a kernel used to be read as a register declaration */
  test_diags d;
  rc_module *m = expect_ok(&d, "kernel @k() {\nreg:\n  jmp kernel\nkernel:\n  jmp wave\nwave:\n  ret\n}\n");
  if (!m) return;
  CHECK_EQ_INT(m->kernels[0]->nblocks, 3);
  CHECK(strcmp(m->kernels[0]->blocks[0]->name, "reg") == 0);
  rc_module_free(m);
  m = expect_ok(&d, "wave kernel @k() {\n  reg scalar i32 $r\nreg:\n  ret\n}\n");
  if (m) CHECK(m->kernels[0]->nregs == 1 && strcmp(m->kernels[0]->blocks[0]->name, "reg") == 0);
  rc_module_free(m);
}

TEST(regression_result_name_after_a_shorter_token) {
  /* the result name was copied with the length of the previous token's name */
  test_diags d;
  rc_module *m = expect_ok(&d, "kernel @k() {\nentry:\n  jmp A\nA:\n  %long_name_here = add i32 1, 2\n"
                               "  %x = add i32 %long_name_here, 1\n  ret\n}\n");
  if (!m) return;
  CHECK(rc_kernel_find_value(m->kernels[0], "long_name_here") != NULL);
  rc_module_free(m);
}

TEST(regression_long_register_names) {
  /* register names were truncated to 70 characters when looked up */
  char name[301];
  memset(name, 'r', 300);
  name[300] = 0;
  char text[1000];
  snprintf(text, sizeof text, "wave kernel @k() {\n  reg vector i32 $%s\nentry:\n  %%a = rget $%s\n  ret\n}\n",
           name, name);
  test_diags d;
  rc_module *m = expect_ok(&d, text);
  rc_module_free(m);
}

TEST(regression_octal_looking_integers_are_decimal) {
  test_diags d;
  rc_module *m = expect_ok(&d, "kernel @k(ptr %p) {\nentry:\n  store i32 0777, %p\n  store i32 -010, %p\n  ret\n}\n");
  if (!m) return;
  char *s = test_print(m);
  CHECK_STR_CONTAINS(s, "store i32 777, %p\n  store i32 -10, %p\n");
  free(s);
  rc_module_free(m);
}

TEST(errors_go_to_the_context_only) {
  /* a context without a callback prints to stderr; with one, nothing else is printed and the
   * count of errors is kept */
  test_diags d;
  test_diags_init(&d);
  d.ctx.max_errors = 1;
  CHECK(test_parse(&d, "kernel") == NULL);
  CHECK(test_parse(&d, "kernel") == NULL);
  CHECK_EQ_INT(d.ctx.nerrors, 2);
  CHECK_STR_CONTAINS(d.text, "test.rir:1:7: error: expected a kernel name like @main, found end of file");
  CHECK(strstr(d.text + 1, "test.rir") == NULL); /* only the first was shown */
}

TEST(keyword_lookups) {
  CHECK_EQ_INT(rc_opcode_lookup("add", 3), RC_OP_ADD);
  CHECK_EQ_INT(rc_opcode_lookup("addx", 3), RC_OP_ADD); /* only n bytes count */
  CHECK_EQ_INT(rc_opcode_lookup("ad", 2), -1);
  CHECK_EQ_INT(rc_opcode_lookup("brexecz", 7), RC_OP_BREXECZ);
  CHECK_EQ_INT(rc_opcode_lookup("br", 2), RC_OP_BR);
  CHECK_EQ_INT(rc_opcode_lookup("", 0), -1);
  CHECK_EQ_INT(rc_type_lookup("void", 4), RC_VOID);
  CHECK_EQ_INT(rc_type_lookup("i16", 3), RC_I16);
  CHECK_EQ_INT(rc_type_lookup("i1", 2), RC_I1);
  CHECK_EQ_INT(rc_type_lookup("i", 1), -1);
  CHECK_EQ_INT(rc_cmp_lookup("ult", 3, false), RC_CMP_ULT);
  CHECK_EQ_INT(rc_cmp_lookup("ult", 3, true), RC_CMP_FULT);
  CHECK_EQ_INT(rc_cmp_lookup("oeq", 3, false), -1);
  CHECK_EQ_INT(rc_cmp_lookup("true", 4, true), RC_CMP_FTRUE);
  for (int op = 1; op < RC_OP_COUNT; op++) {
    const char *n = rc_opcode_name((rc_opcode)op);
    /* a call of a module function is spelled as a builtin call; the parser tells them apart */
    CHECK_EQ_INT(rc_opcode_lookup(n, strlen(n)), op == RC_OP_CALLFN ? RC_OP_CALL : op);
  }
}

/* Value names are checked when the kernel ends or an error is found (src/ir/parse_names.c): a
 * redefinition must still be the one error reported when a later line has another problem. */
TEST(redefinition_before_a_later_error_is_reported_first) {
  static const char *const later[] = {
      "  %b = frob i32 %x\n",           /* unknown instruction (parser) */
      "  %b = add i32 %x, #\n",         /* unexpected character (lexer) */
      "  jmp nowhere\n",                /* undefined block (end of kernel) */
      "  %b = add i32 %undefined, 1\n", /* undefined value (end of kernel) */
  };
  for (size_t t = 0; t < sizeof later / sizeof *later; t++) {
    char text[512];
    snprintf(text, sizeof text,
             "kernel @k(i32 %%x) {\nentry:\n  %%a = add i32 %%x, 1\n  %%a = add i32 %%x, 2\n%s  ret\n}\n",
             later[t]);
    expect_error(text, "4:3: error: redefinition of %a");
  }
}

/* Uses of a value defined long before, after the parser's cache of recent names has forgotten it:
 * they resolve to the right definition, are type-checked, and a redefinition that far apart is
 * found. */
TEST(value_used_long_after_its_definition) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_puts(&sb, "kernel @k(i32 %x) {\nentry:\n  %far = add i32 %x, 7\n");
  for (int i = 0; i < 5000; i++) rc_sb_printf(&sb, "  %%v%d = add i32 %%x, %d\n", i, i);
  size_t mark = sb.len;
  rc_sb_puts(&sb, "  %use = mul i32 %far, %v4999\n  ret\n}\n");
  test_diags d;
  rc_module *m = expect_ok(&d, sb.data);
  if (m) {
    rc_instr *use = m->kernels[0]->blocks[0]->last->prev;
    CHECK(strcmp(use->v.name, "use") == 0);
    CHECK(use->ops[0] == rc_kernel_find_value(m->kernels[0], "far"));
    CHECK(strcmp(use->ops[0]->name, "far") == 0);
    CHECK(rc_kernel_find_value(m->kernels[0], "v0") != NULL);
  }
  rc_module_free(m);
  sb.len = mark;
  rc_sb_puts(&sb, "  %use = mul i64 %far, 2\n  ret\n}\n");
  expect_error(sb.data, "5004:18: error: %far has type i32 but is used as i64");
  sb.len = mark; /* ... still the first error when a later line has another */
  rc_sb_puts(&sb, "  %use = mul i64 %far, 2\n  %w = frob i32 1\n  ret\n}\n");
  expect_error(sb.data, "5004:18: error: %far has type i32 but is used as i64");
  sb.len = mark; /* a mistyped use after a redefinition: the redefinition is first */
  rc_sb_puts(&sb, "  %v7 = add i32 %x, 1\n  %use = mul i64 %far, 2\n  %w = frob i32 1\n  ret\n}\n");
  expect_error(sb.data, "5004:3: error: redefinition of %v7");
  sb.len = mark;
  rc_sb_puts(&sb, "  %far = mul i32 %x, 2\n  ret\n}\n");
  expect_error(sb.data, "5004:3: error: redefinition of %far");
  rc_sb_free(&sb);
}

TEST(label_defined_long_after_its_first_use) {
  /* a forward reference that has left the parser's cache of recent names by the time its label
   * comes, and a label redefined after that */
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_puts(&sb, "kernel @k() {\nentry:\n  jmp far\n");
  for (int i = 0; i < 5000; i++) rc_sb_printf(&sb, "b%d:\n  jmp b%d\n", i, i + 1);
  rc_sb_puts(&sb, "b5000:\n  jmp far\nfar:\n  ret\n}\n");
  test_diags d;
  rc_module *m = expect_ok(&d, sb.data);
  if (m) {
    CHECK_EQ_INT(m->kernels[0]->nblocks, 5003);
    CHECK(strcmp(m->kernels[0]->blocks[5002]->name, "far") == 0);
    CHECK_EQ_INT(m->kernels[0]->blocks[5002]->npreds, 2);
  }
  rc_module_free(m);
  /* the same with `b7:` defined again at the end (instead of the closing brace) */
  sb.len -= 2;
  rc_sb_puts(&sb, "b7:\n  ret\n}\n");
  test_diags_init(&d);
  CHECK(test_parse(&d, sb.data) == NULL);
  CHECK_STR_CONTAINS(d.text, "error: redefinition of block b7 (first defined at 18:1)");
  rc_sb_free(&sb);
}

/* ---- the types and names that come from LLVM ------------------------------------------------- */

TEST(extended_types_and_globals) {
  /* nesting is bounded, so that no input can make the parser recurse without end */
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_puts(&sb, "kernel @k(");
  for (int i = 0; i < 40; i++) rc_sb_puts(&sb, "[1 x ");
  rc_sb_puts(&sb, "i32");
  for (int i = 0; i < 40; i++) rc_sb_puts(&sb, "]");
  rc_sb_puts(&sb, " %x) {\nentry:\n  ret\n}\n");
  expect_error(sb.data, "1:176: error: type nested more than 32 deep");
  rc_sb_free(&sb);
  expect_error("kernel @k() {\nentry:\n  %a = load i32, ptr addrspace(1) @g\n  ret\n}\n",
               "3:35: error: use of undefined global @g");
  expect_error("global @g : [2 x i8] = \"0g00\"\nkernel @k() {\nentry:\n  ret\n}\n",
               "1:24: error: 'g' is not a hexadecimal digit");
  expect_error("global @g : [2 x i8] = \"00\"\nkernel @k() {\nentry:\n  ret\n}\n",
               "1:24: error: @g holds 2 bytes, so its initialiser has 4 hexadecimal digits");
  expect_error("kernel @k() {\nentry:\n  call void @nowhere()\n  ret\n}\n",
               "3:13: error: unknown function or builtin @nowhere");
  expect_error("kernel @k(<0 x i32> %v) {\nentry:\n  ret\n}\n", "1:11: error: a vector has 1 to 1024 elements");
  expect_error("kernel @k(<2 x [2 x i32]> %v) {\nentry:\n  ret\n}\n",
               "1:11: error: vector elements must be integers, floats or pointers");
  expect_error("kernel @k(i129 %v) {\nentry:\n  ret\n}\n", "1:11: error: expected a type");
  expect_error("kernel @k(<2 x i32> %v) {\nentry:\n  %a = add <2 x i32> %v, <1, 2, 3>\n  ret\n}\n",
               "3:31: error: too many elements for <2 x i32>");
  expect_error("global @g : i32\nkernel @g() {\nentry:\n  ret\n}\n", "2:8: error: redefinition of @g (a global)");
}
