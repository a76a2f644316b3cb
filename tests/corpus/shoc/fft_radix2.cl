// after SHOC's fft: in-group radix-2 butterflies in __local memory on float2 complex values
// reconv-run(fft64): --global 64 --local 32 --arg data=f32[128]:rand(55)
#define N 64
__kernel void fft64(__global float2 *data) {
  __local float2 s[N];
  int t = get_local_id(0);
  int base = get_group_id(0) * 0; /* one transform per launch: both groups do the same work */
  s[t] = data[base + t];
  s[t + N / 2] = data[base + t + N / 2];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = 1; h < N; h <<= 1) {
    int grp = t / h, pos = t % h;
    int i0 = grp * 2 * h + pos, i1 = i0 + h;
    float ang = -3.14159265f * pos / h;
    float c = cos(ang), sn = sin(ang);
    float2 a = s[i0], b = s[i1];
    float2 tw = (float2)(b.x * c - b.y * sn, b.x * sn + b.y * c);
    barrier(CLK_LOCAL_MEM_FENCE);
    s[i0] = a + tw;
    s[i1] = a - tw;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (get_group_id(0) == 0) {
    data[t] = s[t];
    data[t + N / 2] = s[t + N / 2];
  }
}
