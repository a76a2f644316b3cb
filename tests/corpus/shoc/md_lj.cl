// after SHOC's md: Lennard-Jones forces from a neighbour list, with a cutoff test per neighbour
// reconv-run(compute_lj_force): --global 64 --local 32 --arg force=f32[256] --arg position=f32[256]:rand(53,0,4)
// reconv-run(compute_lj_force): --arg neighCount=i32[1]:fill(8) --arg neighList=i32[512]:rand(54,0,63)
// reconv-run(compute_lj_force): --arg cutsq=4.0 --arg lj1=1.5 --arg lj2=2.0 --arg inum=64
__kernel void compute_lj_force(__global float4 *force, __global const float4 *position,
                               __global const int *neighCount, __global const int *neighList,
                               float cutsq, float lj1, float lj2, int inum) {
  int idx = get_global_id(0);
  float4 f = (float4)(0.0f);
  float4 ipos = position[idx];
  int maxNeighbors = neighCount[0];
  for (int j = 0; j < maxNeighbors; j++) {
    int jidx = neighList[j * inum + idx];
    if (jidx == idx) continue;
    float4 d = ipos - position[jidx];
    float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
    if (r2 < cutsq && r2 > 1e-4f) {
      float r2inv = 1.0f / r2;
      float r6inv = r2inv * r2inv * r2inv;
      float fc = r2inv * r6inv * (lj1 * r6inv - lj2);
      f.xyz += d.xyz * fc;
    }
  }
  force[idx] = f;
}
