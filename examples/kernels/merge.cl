// A merge step (as in merge sort): the launch's N work-items merge two sorted runs, a of n = N / 2
// elements and b of the other N - n, into out. Work-item g takes element g of a (or g - n of b),
// finds its rank in the other run by binary search, and writes it to its place. Equal keys from a
// go first. The search loop runs a different number of times per work-item and its branch goes
// either way. The run lengths follow the launch, so the buffers are sized with N and any --global
// works (reconv equiv tries 1 ... 4096 work-items).
//
// reconv-run(merge): --global 64 --arg a=i32[N]:seq(0,3) --arg b=i32[N]:seq(5,2) --arg out=i32[N]

__kernel void merge(__global const int *a, __global const int *b, __global int *out) {
  int gid = get_global_id(0);
  int total = get_global_size(0);
  int n = total / 2;
  bool from_a = gid < n;
  int i = from_a ? gid : gid - n;
  int v = from_a ? a[i] : b[i];
  __global const int *other = from_a ? b : a;
  int lo = 0, hi = from_a ? total - n : n;
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
