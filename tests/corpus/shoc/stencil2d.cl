// after SHOC's stencil2d: 9-point weighted stencil, center/cardinal/diagonal weights, borders copied
// reconv-run(stencil9): --global 16,16 --local 8,8 --arg data=f32[256]:rand(52) --arg newData=f32[256]
// reconv-run(stencil9): --arg wCenter=0.25 --arg wCardinal=0.15 --arg wDiagonal=0.05
__kernel void stencil9(__global const float *data, __global float *newData, float wCenter,
                       float wCardinal, float wDiagonal) {
  int x = get_global_id(0), y = get_global_id(1);
  int w = get_global_size(0), h = get_global_size(1);
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { newData[i] = data[i]; return; }
  float c = data[i];
  float card = data[i - 1] + data[i + 1] + data[i - w] + data[i + w];
  float diag = data[i - w - 1] + data[i - w + 1] + data[i + w - 1] + data[i + w + 1];
  newData[i] = wCenter * c + wCardinal * card + wDiagonal * diag;
}
