/* reconv: the command-line tool. A thin dispatcher over the subcommands in tools/cmd_*.c. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <errno.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifndef RECONV_VERSION
#define RECONV_VERSION "dev"
#endif

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"print", cmd_print, "parse, verify and print a module in the .rir text form"},
    {"verify", cmd_verify, "check a module against the IR rules (docs/ir.md)"},
    {"dot", cmd_dot, "draw a kernel's CFG as Graphviz DOT"},
    {"opt", cmd_opt, "run passes (reconverge, lowerswitch, unify-exits, ...) over a module"},
    {"orderings", cmd_orderings, "compare reconverge's block orderings on a kernel (thesis 4.3.1)"},
    {"run", cmd_run, "run a kernel on the thread-level interpreter; print buffer checksums"},
    {"equiv", cmd_equiv, "check two programs for trace equivalence on many inputs"},
    {"gen", cmd_gen, "write a random kernel of a chosen shape"},
    {"analyze", cmd_analyze, "report cycles, uniformity and structure (reducible, reconverging ...)"},
    {"sim", cmd_sim, "run a kernel in waves (IPDOM stack, or lowered wave code) and report metrics"},
    {"compare", cmd_compare, "compare strategies (IPDOM stack, reconverge+lower per ordering) on a kernel"},
    {"report", cmd_report, "write one HTML page with a kernel's CFGs, the comparison, its timeline"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: reconv COMMAND [options] [FILE]\n\n"
             "Compile divergent control flow for SIMD and SIMT machines.\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\n`reconv COMMAND --help` describes a command. Exit codes: 0 success, 1 bad input or\n"
             "a failed check, 2 wrong usage. FILE may be - for standard input.\n");
}

/* A command on a big kernel allocates and frees arrays of megabytes many times over (an analysis's
 * tables per block, use lists, the text of a module). glibc's defaults give blocks from 128 KiB up
 * (rising with what was freed) their own mapping and return freed memory at the heap's top to the
 * system; then every such array is fresh pages, and each page costs a fault and a clearing by the
 * kernel: `reconv opt` on a 10^5-block module spent as much CPU time in the kernel as `opt` spends
 * reading the module. The process keeps its memory instead (it ends soon anyway). */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0); /* every block from the heap, where freed ones are reused */
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int main(int argc, char **argv) {
  keep_freed_memory();
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *c = argv[1];
  if (cli_flag(c, "-h", "--help") || strcmp(c, "help") == 0) {
    if (strcmp(c, "help") == 0 && argc > 2) {
      for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, argv[2]) == 0) {
          char *args[] = {argv[2], "--help", NULL};
          return commands[i].run(2, args);
        }
      return cli_usage_error("help", "unknown command '%s'", argv[2]);
    }
    usage(stdout);
    return EXIT_OK;
  }
  if (cli_flag(c, NULL, "--version")) {
    printf("reconv %s", RECONV_VERSION);
#ifdef RECONV_HAVE_LLVM
    /* scripts read the LLVM version and its tools' directory from here (scripts/llvm_tools.sh) */
    printf(" (with llvm %s, tools in %s)", RECONV_LLVM_VERSION, RECONV_LLVM_BINDIR);
#endif
    printf("\n");
    return EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, c) == 0) {
      int rc = commands[i].run(argc - 1, argv + 1);
      /* whatever a command printed must have arrived: a full disk is not success */
      if ((fflush(stdout) != 0 || ferror(stdout)) && rc == EXIT_OK) {
        fprintf(stderr, "reconv: error: cannot write standard output: %s\n", strerror(errno));
        rc = EXIT_BAD_INPUT;
      }
      return rc;
    }
  fprintf(stderr, "reconv: error: unknown command '%s'\n", c);
  usage(stderr);
  return EXIT_USAGE;
}
