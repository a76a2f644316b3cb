// The lighting loop of Wahlster 2018, Listing B.1 (Valve's SteamVR shader, the CFG of the thesis's
// Figure 1.7a), simplified to plain float math: a loop over the lights that skips a light with
// `continue` when it is out of range, when the surface faces away from it, and when it casts a
// shadow that covers the pixel. Every work-item shades one pixel of an 8x8 tile, so the three
// continues diverge differently in every iteration.
//
// Each light is four floats: x, y, radius squared, shadow caster (> 2 casts a shadow).
// reconv-run(lighting): --global 64 --arg lights=f32[32]:rand(3,0,4) --arg out=f32[64] --arg num_lights=8

static float shadow_term(float px, float py, int i) {
  // a stand-in for ComputeShadow_PCF_3x3_Gaussian: stripes of shadow that move with the light
  float s = px * 0.75f - py * 0.5f + (float)i * 0.25f;
  return s - floor(s) - 0.35f;
}

__kernel void lighting(__global const float *lights, __global float *out, int num_lights) {
  int gid = get_global_id(0);
  float px = (float)(gid % 8) * 0.5f, py = (float)(gid / 8) * 0.5f;
  float nx = 0.6f, ny = 0.8f;  // the surface normal
  float diffuse = 0.0f;
  int used = 0;
  for (int i = 0; i < num_lights; i++) {
    float dx = lights[4 * i] - px, dy = lights[4 * i + 1] - py;
    float dist2 = dx * dx + dy * dy;
    if (dist2 > lights[4 * i + 2])
      continue;  // outside light range
    float facing = nx * dx + ny * dy;
    if (facing <= 0.0f)
      continue;  // backface cull pixel to this light
    float falloff = 1.0f - dist2 / lights[4 * i + 2];
    float shadow = 1.0f;
    if (lights[4 * i + 3] > 2.0f) {
      shadow = shadow_term(px, py, i);
      if (shadow <= 0.0f)
        continue;  // in shadow
    }
    used++;
    diffuse += falloff * shadow * facing / sqrt(dist2);
  }
  out[gid] = diffuse + (float)used;
}
