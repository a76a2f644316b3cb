// after the NVIDIA OpenCL SDK's oclParticles: hash particles to a grid cell and find cell starts in a sorted hash list
// reconv-run(calcHash): --global 64 --local 32 --arg d_Hash=i32[64] --arg d_Index=i32[64] --arg d_Pos=f32[256]:rand(230,0,4) --arg numParticles=64
// reconv-run(findCellBoundsAndReorder): --global 64 --local 32 --arg d_CellStart=i32[64]:fill(-1) --arg d_CellEnd=i32[64] --arg d_Hash=i32[64]:seq(0,0) --arg numParticles=64
__attribute__((noinline)) int getGridHash(int4 gridPos) {
  gridPos.x = gridPos.x & 3;
  gridPos.y = gridPos.y & 3;
  gridPos.z = gridPos.z & 3;
  return mul24(mul24(gridPos.z, 4), 4) + mul24(gridPos.y, 4) + gridPos.x;
}
__kernel void calcHash(__global uint *d_Hash, __global uint *d_Index, __global const float4 *d_Pos, uint numParticles) {
  uint index = get_global_id(0);
  if (index >= numParticles) return;
  float4 p = d_Pos[index];
  int4 gridPos = convert_int4(floor(p));
  d_Hash[index] = getGridHash(gridPos);
  d_Index[index] = index;
}
__kernel void findCellBoundsAndReorder(__global uint *d_CellStart, __global uint *d_CellEnd, __global const uint *d_Hash, uint numParticles) {
  __local uint localHash[33];
  uint index = get_global_id(0);
  uint hash = d_Hash[index] & 63u;
  localHash[get_local_id(0) + 1] = hash;
  if (get_local_id(0) == 0) localHash[0] = index > 0 ? d_Hash[index - 1] & 63u : 0xffffffffu;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (index < numParticles) {
    if (index == 0 || hash != localHash[get_local_id(0)]) {
      d_CellStart[hash] = index;
      if (index > 0) d_CellEnd[localHash[get_local_id(0)]] = index;
    }
    if (index == numParticles - 1) d_CellEnd[hash] = index + 1;
  }
}
