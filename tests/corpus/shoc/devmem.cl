// after SHOC's DeviceMemory: coalesced and strided global reads, and a __local read loop
// reconv-run(readGlobalCoalesced): --global 64 --local 32 --arg data=f32[1024]:rand(61) --arg output=f32[64] --arg size=1024 --arg reps=2
// reconv-run(readLocal): --global 64 --local 64 --arg output=f32[64] --arg reps=3
__kernel void readGlobalCoalesced(__global const float *data, __global float *output, int size, int reps) {
  int gid = get_global_id(0), n = get_global_size(0);
  float sum = 0.0f;
  for (int r = 0; r < reps; r++) {
    int s = gid;
    for (int j = 0; j < 16; j++) {
      sum += data[s];
      s = (s + n) & (size - 1);
    }
  }
  output[gid] = sum;
}
__kernel void readLocal(__global float *output, int reps) {
  __local float lbuf[256];
  int tid = get_local_id(0);
  for (int i = tid; i < 256; i += get_local_size(0)) lbuf[i] = (float)i;
  barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0.0f;
  int s = tid;
  for (int r = 0; r < reps; r++)
    for (int j = 0; j < 16; j++) { sum += lbuf[s]; s = (s + 17) & 255; }
  output[get_global_id(0)] = sum;
}
