// after the AMD APP SDK's FloydWarshall: one pass k, the shorter path through k replaces the old one
// reconv-run(floydWarshallPass): --global 16,16 --local 8,8 --arg pathDistanceBuffer=i32[256]:rand(156,1,50) --arg pathBuffer=i32[256] --arg numNodes=16 --arg pass=5
__kernel void floydWarshallPass(__global uint *pathDistanceBuffer, __global uint *pathBuffer, const uint numNodes, const uint pass) {
  int xValue = get_global_id(0), yValue = get_global_id(1);
  int k = pass;
  int oldWeight = pathDistanceBuffer[yValue * numNodes + xValue];
  int tempWeight = pathDistanceBuffer[yValue * numNodes + k] + pathDistanceBuffer[k * numNodes + xValue];
  if (tempWeight < oldWeight) {
    pathDistanceBuffer[yValue * numNodes + xValue] = tempWeight;
    pathBuffer[yValue * numNodes + xValue] = k;
  }
}
