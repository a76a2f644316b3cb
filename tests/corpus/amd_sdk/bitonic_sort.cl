// after the AMD APP SDK's BitonicSort: one compare-and-swap stage, direction from the pair's block
// reconv-run(bitonicSort): --global 32 --local 32 --arg theArray=i32[64]:rand(151,0,1000) --arg stage=2 --arg passOfStage=1 --arg direction=1
__kernel void bitonicSort(__global uint *theArray, const uint stage, const uint passOfStage, const uint direction) {
  uint sortIncreasing = direction;
  uint threadId = get_global_id(0);
  uint pairDistance = 1 << (stage - passOfStage);
  uint blockWidth = 2 * pairDistance;
  uint leftId = (threadId % pairDistance) + (threadId / pairDistance) * blockWidth;
  uint rightId = leftId + pairDistance;
  uint leftElement = theArray[leftId], rightElement = theArray[rightId];
  uint sameDirectionBlockWidth = 1 << stage;
  if ((threadId / sameDirectionBlockWidth) % 2 == 1) sortIncreasing = 1 - sortIncreasing;
  uint greater, lesser;
  if (leftElement > rightElement) { greater = leftElement; lesser = rightElement; }
  else { greater = rightElement; lesser = leftElement; }
  if (sortIncreasing) { theArray[leftId] = lesser; theArray[rightId] = greater; }
  else { theArray[leftId] = greater; theArray[rightId] = lesser; }
}
