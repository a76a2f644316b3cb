// after Parboil's mri-q: Q matrix computation, sum over k-space of phi * (cos, sin) of the phase
// reconv-run(computeQ): --global 64 --local 32 --arg numK=32 --arg kx=f32[32]:rand(10) --arg ky=f32[32]:rand(11)
// reconv-run(computeQ): --arg kz=f32[32]:rand(12) --arg phiMag=f32[32]:rand(13) --arg x=f32[64]:rand(14)
// reconv-run(computeQ): --arg y=f32[64]:rand(15) --arg z=f32[64]:rand(16) --arg Qr=f32[64] --arg Qi=f32[64]
#define PIx2 6.2831853071795864769252867665590058f
__kernel void computeQ(int numK, __global const float *kx, __global const float *ky,
                       __global const float *kz, __global const float *phiMag,
                       __global const float *x, __global const float *y, __global const float *z,
                       __global float *Qr, __global float *Qi) {
  int t = get_global_id(0);
  float sx = x[t], sy = y[t], sz = z[t];
  float qr = Qr[t], qi = Qi[t];
  for (int k = 0; k < numK; k++) {
    float arg = PIx2 * (kx[k] * sx + ky[k] * sy + kz[k] * sz);
    float c, s = sincos(arg, &c);
    qr += phiMag[k] * c;
    qi += phiMag[k] * s;
  }
  Qr[t] = qr;
  Qi[t] = qi;
}
