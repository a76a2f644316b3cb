/* Printing a run of `reconv sim` (the comparison engine's rc_exec_result, include/reconv/compare.h):
 * the text report and the JSON object. */
#ifndef RECONV_SIM_REPORT_H
#define RECONV_SIM_REPORT_H

#include "cli.h"
#include "reconv/compare.h"

void sim_report_text(FILE *f, const rc_exec_result *res, const rc_run_spec *s);
void sim_report_json(FILE *f, const rc_exec_result *res, const rc_run_spec *s);

#endif
