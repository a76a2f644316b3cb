// after the state machines of NVIDIA's oclDXTCompression refinement loop: a goto into the middle of a loop (an irreducible cycle)
// reconv-run(two_entry_loop): --global 64 --local 32 --arg in=i32[64]:rand(241,0,99) --arg out=i32[64]
__kernel void two_entry_loop(__global const int *in, __global int *out) {
  int v = in[get_global_id(0)];
  int n = 0;
  if (v & 1) goto odd;
even:
  v = v / 2;
  n++;
  if (n > 20) goto done;
odd:
  v = 3 * v + 1;
  n++;
  if (v > 4 && n < 20) goto even;
done:
  out[get_global_id(0)] = n * 1000 + v;
}
