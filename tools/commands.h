/* The subcommands of reconv. Each lives in tools/cmd_NAME.c and handles its own --help. */
#ifndef RECONV_COMMANDS_H
#define RECONV_COMMANDS_H

int cmd_print(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_dot(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_orderings(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_equiv(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
