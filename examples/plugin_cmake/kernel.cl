// reconv-run: --global 64 --arg in=i32[64]:rand(5,-8,64) --arg out=i32[64] --arg n=64
// A loop with two divergent exits: not reconverging as clang writes it (examples/plugin_cmake).
kernel void search(global const int *in, global int *out, int n) {
  int i = get_global_id(0);
  int found = -1;
  for (int j = 0; j < n; j++) {
    int v = in[(i + j) & 63];
    if (v < 0) {
      out[i] = -2 - j;
      return;
    }
    if (v == i) {
      found = j;
      break;
    }
  }
  out[i] = found;
}
