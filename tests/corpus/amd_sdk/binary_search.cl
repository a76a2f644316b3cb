// after the AMD APP SDK's BinarySearch: each work-item checks whether the key lies in its segment
// reconv-run(binarySearch): --global 16 --local 16 --arg outputArray=i32[4]:fill(-1) --arg sortedArray=i32[256]:seq(0,3) --arg findMe=100
__kernel void binarySearch(__global int *outputArray, __global const uint *sortedArray, const unsigned int findMe) {
  unsigned int tid = get_global_id(0);
  uint lowerBound = tid * 16, upperBound = lowerBound + 15;
  uint lowerBoundElement = sortedArray[lowerBound], upperBoundElement = sortedArray[upperBound];
  if ((lowerBoundElement > findMe) || (upperBoundElement < findMe)) return;
  /* the key is in this segment: bisect it */
  while (lowerBound < upperBound) {
    uint mid = (lowerBound + upperBound) / 2;
    if (sortedArray[mid] == findMe) { outputArray[0] = mid; outputArray[1] = 1; return; }
    if (sortedArray[mid] < findMe) lowerBound = mid + 1;
    else upperBound = mid;
  }
  outputArray[0] = lowerBound;
  outputArray[1] = sortedArray[lowerBound] == findMe;
}
