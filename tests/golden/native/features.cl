// REQUIRES: llvm
// OpenCL features the native oracle runs through its runtime library (src/llvm/native_rt.cl),
// each kernel compared with itself natively: a work-group reduction with barriers, __local memory
// and an async copy; float4 arithmetic with vload4/vstore4 and vector math; scalar math built-ins;
// atomics on global and local memory; a device function the compiler keeps out of line. The last
// RUN line changes one store of @device (`sed`) and must find the first element it changed.
// RUN: reconv equiv --native --target spir64 %s %s --kernel reduce --sizes 64,256 --seeds 2
// RUN: reconv equiv --native --target spir64 %s %s --kernel vectors --sizes 1,64,257 --seeds 2
// RUN: reconv equiv --native --target spir64 %s %s --kernel math --sizes 1,64,257 --seeds 2
// RUN: reconv equiv --native --target spir64 %s %s --kernel atomics --sizes 64,256 --seeds 2
// RUN: reconv equiv --native --target spir64 %s %s --kernel device --sizes 1,64,257 --seeds 2
// RUN: sed 's/scale(x, gid) \/\/ the store/scale(x, gid + (gid == 37))/' %s > %t.cl && reconv equiv --native --target spir64 %s %t.cl --kernel device --sizes 1,64,257 --seeds 2
//
// reconv-run(reduce): --global 256 --local 64 --arg in=i32[N]:rand(1,-50,50) --arg sums=i32[N]
// reconv-run(reduce): --arg copy=local:i32[64]
// reconv-run(vectors): --global 64 --arg in=f32[N*4]:rand(2,-2,2) --arg out=f32[N*4]
// reconv-run(math): --global 64 --arg in=f32[N]:rand(3,-3,3) --arg out=f32[N*8]
// reconv-run(atomics): --global 256 --local 64 --arg in=i32[N]:rand(4,0,15) --arg hist=i32[16]
// reconv-run(atomics): --arg lo=i32[1]:fill(1000)
// reconv-run(device): --global 64 --arg in=f32[N]:rand(5) --arg out=f32[N]

// Sum per work-group: the group's inputs come in by an async copy, then a tree of additions in
// local memory, a barrier between the levels. Every work-item writes the group's sum.
kernel void reduce(global const int *in, global int *sums, local int *copy) {
  local int part[64];
  size_t l = get_local_id(0), n = get_local_size(0);
  event_t e = async_work_group_copy(copy, in + (get_global_id(0) - l), n, 0);
  wait_group_events(1, &e);
  part[l] = copy[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = 32; s > 0; s /= 2) {
    if (l < s && l + s < n) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sums[get_global_id(0)] = part[0];
}

kernel void vectors(global const float *in, global float *out) {
  size_t g = get_global_id(0);
  float4 v = vload4(g, in);
  float4 w = fma(v, (float4)(0.5f, -1.0f, 2.0f, 0.25f), sqrt(fabs(v))) * exp(-v * v);
  w = select(w, normalize(v), isgreater(v, (float4)(1.0f)));
  vstore4(clamp(w, -1.5f, 1.5f) + (float4)(dot(v, w), length(w), distance(v, w), 0.0f), g, out);
}

kernel void math(global const float *in, global float *out) {
  size_t g = get_global_id(0);
  float x = in[g];
  out[8 * g] = sin(x) + cos(x);
  out[8 * g + 1] = atan2(x, 1.5f);
  out[8 * g + 2] = pow(fabs(x), 1.7f);
  out[8 * g + 3] = erf(x) - erfc(x);
  out[8 * g + 4] = exp(x) * log1p(fabs(x));
  out[8 * g + 5] = tanh(x) + cbrt(x) + hypot(x, 2.0f);
  out[8 * g + 6] = fmod(x, 0.7f) + floor(x) + rint(x * 3.0f);
  out[8 * g + 7] = convert_float(convert_int_sat_rtn(x * 1e9f)) + mad(x, x, 1.0f);
}

// A histogram of the inputs in local memory, merged into the global one; and the smallest input.
kernel void atomics(global const int *in, global int *hist, global int *lo) {
  local int h[16];
  size_t l = get_local_id(0), g = get_global_id(0);
  if (l < 16) h[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&h[in[g] & 15]);
  atomic_min(lo, in[g]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 16) atomic_add(&hist[l], h[l]);
}

__attribute__((noinline)) float scale(float x, size_t i) {
  float s = 0.0f;
  for (size_t k = 0; k <= i % 7; k++) s += x / (float)(k + 1);
  return s;
}

kernel void device(global const float *in, global float *out) {
  size_t gid = get_global_id(0);
  float x = in[gid];
  out[gid] = scale(x, gid) // the store
      ;
}
