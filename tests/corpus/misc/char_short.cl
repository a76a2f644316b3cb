// after the 8- and 16-bit image code of the NVIDIA SDK's oclPostprocessGL and AMD's SobelFilter: char/short arithmetic with saturation
// reconv-run(pixels): --global 64 --local 32 --arg in=i8[256]:rand(254,0,127) --arg gain=i16[64]:rand(255,-300,300) --arg out=i8[256]
__kernel void pixels(__global const uchar4 *in, __global const short *gain, __global uchar4 *out) {
  int i = get_global_id(0);
  uchar4 p = in[i];
  short g = gain[i];
  short4 wide = convert_short4(p) * (short4)(g) / (short4)(64);
  uchar4 r = convert_uchar4_sat(wide);
  if (g < 0) r = (uchar4)(255) - r;
  r.w = p.w;
  out[i] = r;
}
