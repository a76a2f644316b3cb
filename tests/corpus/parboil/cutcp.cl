// after Parboil's cutcp: cutoff Coulombic potential on a lattice, atoms beyond the cutoff skipped
// reconv-run(cutoff_potential): --global 64 --local 64 --arg atoms=f32[128]:rand(17,0,8) --arg natoms=32
// reconv-run(cutoff_potential): --arg lattice=f32[64] --arg h=0.5 --arg cutoff2=4.0
__kernel void cutoff_potential(__global const float4 *atoms, int natoms, __global float *lattice,
                               float h, float cutoff2) {
  int gid = get_global_id(0);
  float4 p = (float4)((gid & 3) * h, ((gid >> 2) & 3) * h, (gid >> 4) * h, 0.0f);
  float e = 0.0f;
  float inv_c2 = 1.0f / cutoff2;
  for (int a = 0; a < natoms; a++) {
    float4 at = atoms[a];
    float dx = at.x - p.x, dy = at.y - p.y, dz = at.z - p.z;
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= cutoff2) continue;
    float s = 1.0f - r2 * inv_c2;
    e += at.w * rsqrt(r2 + 0.01f) * s * s;
  }
  lattice[gid] += e;
}
