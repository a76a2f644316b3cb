/* Statistics of a comparison (include/reconv/compare.h): how well the cost model's order of the
 * strategies matches the clock's, as Spearman's rank correlation. */
#include "compare_internal.h"

#include <math.h>
#include <stdlib.h>

/* ranks of v[0..n), ties sharing their mean rank (1-based) */
static void ranks(const double *v, int n, double *rank) {
  for (int i = 0; i < n; i++) {
    int below = 0, equal = 0;
    for (int j = 0; j < n; j++) below += v[j] < v[i], equal += v[j] == v[i];
    rank[i] = below + (equal + 1) / 2.0;
  }
}

double rc_rank_correlation(const double *x, const double *y, int n) {
  if (n < 3) return NAN;
  double *rx = rc_xcalloc((size_t)n, sizeof *rx), *ry = rc_xcalloc((size_t)n, sizeof *ry);
  ranks(x, n, rx);
  ranks(y, n, ry);
  double mean = (n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0; /* both rank sets sum to n(n+1)/2 */
  for (int i = 0; i < n; i++) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  free(rx);
  free(ry);
  return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

double rc_compare_model_clock_correlation(const rc_compare_row *rows, int n) {
  double *x = rc_xcalloc((size_t)n + 1, sizeof *x), *y = rc_xcalloc((size_t)n + 1, sizeof *y);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (rows[i].ran && rows[i].native.ran && rows[i].st->mode == RC_MACHINE_WAVE) {
      x[m] = (double)rc_compare_issued(&rows[i]);
      y[m++] = rows[i].native.ns_per_item;
    }
  double rho = rc_rank_correlation(x, y, m);
  free(x);
  free(y);
  return rho;
}
