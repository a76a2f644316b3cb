// after the AMD APP SDK's SimpleConvolution: a mask convolution with clamped window bounds
// reconv-run(simpleConvolution): --global 64 --local 32 --arg output=f32[64] --arg input=f32[64]:rand(165) --arg mask=f32[9]:rand(166) --arg width=8 --arg height=8 --arg maskWidth=3 --arg maskHeight=3
__kernel void simpleConvolution(__global float *output, __global const float *input, __global const float *mask,
                                uint width, uint height, uint maskWidth, uint maskHeight) {
  uint tid = get_global_id(0);
  uint x = tid % width, y = tid / width;
  uint vstep = (maskWidth - 1) / 2, hstep = (maskHeight - 1) / 2;
  uint left = (x < vstep) ? 0 : (x - vstep);
  uint right = ((x + vstep) >= width) ? width - 1 : (x + vstep);
  uint top = (y < hstep) ? 0 : (y - hstep);
  uint bottom = ((y + hstep) >= height) ? height - 1 : (y + hstep);
  float sumFX = 0;
  for (uint i = left; i <= right; ++i)
    for (uint j = top; j <= bottom; ++j) {
      uint maskIndex = (j - (y - hstep)) * maskWidth + (i - (x - vstep));
      sumFX += input[j * width + i] * mask[maskIndex];
    }
  output[tid] = sumFX;
}
