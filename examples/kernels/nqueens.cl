// N-Queens by backtracking: work-item g counts the solutions on a board of 4 + g % 4 squares with
// an explicit stack in private memory. The search is deeply divergent: the boards differ, and so
// does where each work-item is in its search. Solutions: 4 -> 2, 5 -> 10, 6 -> 4, 7 -> 40.
//
// reconv-run(nqueens): --global 16 --arg out=i32[16]

#define MAXN 8

static bool safe(const int *col, int row) {
  for (int i = 0; i < row; i++) {
    int d = col[i] - col[row];
    if (d == 0 || d == row - i || d == i - row)
      return false;
  }
  return true;
}

__kernel void nqueens(__global int *out) {
  int gid = get_global_id(0);
  int n = 4 + gid % 4;
  int col[MAXN];
  int count = 0, row = 0;
  col[0] = -1;
  while (row >= 0) {
    col[row]++;
    while (col[row] < n && !safe(col, row))
      col[row]++;
    if (col[row] < n) {
      if (row == n - 1) {
        count++;
      } else {
        row++;
        col[row] = -1;
      }
    } else {
      row--;  // backtrack
    }
  }
  out[gid] = count;
}
