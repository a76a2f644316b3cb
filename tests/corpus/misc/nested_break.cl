// after the search loops of the AMD APP SDK's StringSearch and BinarySearch: leave two nested loops at once
// reconv-run(find_pair): --global 64 --local 32 --arg a=i32[64]:rand(243,0,63) --arg out=i32[64] --arg n=64
__kernel void find_pair(__global const int *a, __global int *out, int n) {
  int target = get_global_id(0);
  int found = -1;
  for (int i = 0; i < 8; i++) {
    for (int j = i + 1; j < 8; j++) {
      if (a[i] + a[j] == target) { found = i * 8 + j; goto out_of_loops; }
      if (a[j] > 1000) break;
    }
    if (a[i] < 0) break;
  }
out_of_loops:
  out[target] = found;
}
