// A merge step (as in merge sort): the two sorted runs a and b of n elements each are merged into
// out. Work-item g takes element g of a (or g - n of b), finds its rank in the other run by
// binary search, and writes it to its place. Equal keys from a go first. The search loop runs a
// different number of times per work-item and its branch goes either way.
//
// reconv-run(merge): --global 64 --arg a=i32[32]:seq(0,3) --arg b=i32[32]:seq(5,2) --arg out=i32[64] --arg n=32

__kernel void merge(__global const int *a, __global const int *b, __global int *out, int n) {
  int gid = get_global_id(0);
  bool from_a = gid < n;
  int i = from_a ? gid : gid - n;
  int v = from_a ? a[i] : b[i];
  __global const int *other = from_a ? b : a;
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    int w = other[mid];
    if (w < v || (!from_a && w == v))
      lo = mid + 1;
    else
      hi = mid;
  }
  out[i + lo] = v;
}
