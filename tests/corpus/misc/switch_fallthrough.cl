// after the opcode interpreters of SHOC's qtclustering driver and AMD's StringSearch skip tables: a switch with fall-through and shared cases
// reconv-run(opcode_eval): --global 64 --local 32 --arg code=i32[64]:rand(242,0,9) --arg out=i32[64]
__kernel void opcode_eval(__global const int *code, __global int *out) {
  int op = code[get_global_id(0)];
  int acc = get_global_id(0);
  switch (op) {
    case 0: acc += 1; /* fall through */
    case 1: acc *= 3; break;
    case 2:
    case 3: acc = acc ^ 0x55; break;
    case 4: acc = rotate(acc, 5); /* fall through */
    case 5: acc = clz(acc) + popcount(acc); break;
    case 7: out[get_global_id(0)] = -1; return;
    default: acc = -acc; break;
  }
  out[get_global_id(0)] = acc;
}
