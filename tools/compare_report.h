/* Printing a comparison of the strategies (the comparison engine's rows, include/reconv/compare.h):
 * the table of `reconv compare` and its JSON. */
#ifndef RECONV_COMPARE_REPORT_H
#define RECONV_COMPARE_REPORT_H

#include "cli.h"
#include "reconv/compare.h"

void compare_report_text(FILE *f, const rc_kernel *k, const rc_run_spec *s, const rc_compare_row *rows, int n);
void compare_report_json(FILE *f, const rc_kernel *k, const rc_run_spec *s, const rc_compare_row *rows, int n);

#endif
