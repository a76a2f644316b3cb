// after the parameter blocks of Parboil's lbm and SHOC's md (simulation constants passed as a struct)
// reconv-run(apply_params): --global 64 --local 32 --arg x=f32[64]:rand(251) --arg out=f32[64]
typedef struct { float scale; float offset; int mode; int limit; } params_t;
__attribute__((noinline)) float apply_one(params_t p, float v, int i) {
  switch (p.mode) {
    case 0: return v * p.scale + p.offset;
    case 1: return i < p.limit ? v * p.scale : p.offset;
    default: return v;
  }
}
__kernel void apply_params(__global const float *x, __global float *out) {
  params_t p;
  p.scale = 2.0f;
  p.offset = -0.5f;
  p.mode = get_global_id(0) % 3;
  p.limit = 40;
  out[get_global_id(0)] = apply_one(p, x[get_global_id(0)], get_global_id(0));
}
__kernel void apply_params_arg(__global const float *x, __global float *out, params_t p) {
  out[get_global_id(0)] = apply_one(p, x[get_global_id(0)], get_global_id(0));
}
