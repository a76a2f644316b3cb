// after the NVIDIA OpenCL SDK's oclMedianFilter: median of a 3x3 window by a partial bubble sort, borders clamped
// reconv-run(ckMedian): --global 16,16 --local 8,8 --arg uiInputImage=i32[256]:rand(219,0,255) --arg uiOutputImage=i32[256] --arg uiImageWidth=16 --arg uiImageHeight=16
__kernel void ckMedian(__global const uint *uiInputImage, __global uint *uiOutputImage, uint uiImageWidth, uint uiImageHeight) {
  int x = get_global_id(0), y = get_global_id(1);
  uint v[9];
  int n = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int cx = clamp(x + dx, 0, (int)uiImageWidth - 1), cy = clamp(y + dy, 0, (int)uiImageHeight - 1);
      v[n++] = uiInputImage[cy * uiImageWidth + cx];
    }
  for (int i = 0; i < 5; i++) {
    bool swapped = false;
    for (int j = 8; j > i; j--)
      if (v[j] < v[j - 1]) { uint t = v[j]; v[j] = v[j - 1]; v[j - 1] = t; swapped = true; }
    if (!swapped) break;
  }
  uiOutputImage[y * uiImageWidth + x] = v[4];
}
