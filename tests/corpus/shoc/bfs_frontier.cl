// after SHOC's bfs: one frontier expansion, a flag says whether any vertex changed
// reconv-run(bfs_expand): --global 64 --local 64 --arg levels=i32[64]:fill(-1) --arg edgeArray=i32[65]:seq(0,2)
// reconv-run(bfs_expand): --arg edgeArrayAux=i32[130]:rand(58,0,63) --arg curr=0 --arg flag=i32[1] --arg nv=64
__kernel void bfs_expand(__global int *levels, __global const int *edgeArray,
                         __global const int *edgeArrayAux, int curr, __global int *flag, int nv) {
  int tid = get_global_id(0);
  if (tid == 0 && curr == 0) levels[0] = 0; /* seed: vertex 0 is the source */
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (tid >= nv || levels[tid] != curr) return;
  for (int e = edgeArray[tid]; e < edgeArray[tid + 1]; e++) {
    int v = edgeArrayAux[e];
    if (levels[v] == -1) {
      levels[v] = curr + 1;
      *flag = 1;
    }
  }
}
