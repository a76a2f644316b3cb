#!/usr/bin/env bash
# Anantpur and Govindarajan's Table 1 (CC 2014, section 6) on Rodinia 3.1's OpenCL kernels (issue 30).
# Every .cl of a Rodinia checkout fetched outside the repository is compiled by clang for amdgcn at
# -O2 (bench_compile_cl, with the -D and -I the suite's host programs pass), and
# `reconv opt -p linearize` runs on it. Per function: blocks and instructions (reconv IR) before and
# after and the increase, machine instructions and registers (VGPRs) of llc for gfx900 before and
# after (kernels only), and the check: LLVM's verifier on the output, and `reconv equiv` (trace
# equivalence and memory on the interpreter, which also faults on a barrier in divergent control
# flow) under a run specification: the table of rodinia_spec below (sizes from the host programs)
# for the kernels that fault under a guess or take a struct (which a guess cannot give),
# bench_guess_spec's guess for the rest ("no-spec" where
# the original faults under its specification or the interpreter cannot run it; the reason is in
# the work directory's MODULE.KERNEL.run.log or .equiv.log). The paper's figures stand beside
# hotspot and particlefilter; the totals over the functions linearize changes are printed against
# the paper's bounds (instructions at most 1.10x, blocks at most 1.27x; no function of 50 or more
# instructions above 1.3x).
# With --native, each kernel found equivalent is also checked by the native oracle, which owes
# nothing to reconv's interpreter: the module compiled again for spir64, linearized, and both run
# natively (`reconv equiv --native`, memory compared) under the same specification ("+native" in
# the check column), a struct argument clang passes on amdgcn by value (`NAME.coerce`) given on
# spir64, where it is a byval pointer, as a buffer of the struct's bytes.
# With --table4, then the paper's Table 4 kind of rows for the kernels that ran under their
# specification: instructions executed (vector + scalar, issued per wave of 32) by the original and
# by linearize at opt=0 (the paper's "After") to opt=3, on the IPDOM-stack model (`reconv sim --mode
# ipdom`, the linearized kernel at thread level) and on the wave simulator (`reconverge,lower` after
# linearize), every run checked against the interpreter (--check: traces and memory).
#
#   bench/rodinia.sh [--build DIR] [--opt N] [--keep DIR] [--no-llc] [--native] [--table4] RODINIA_DIR
#
# RODINIA_DIR is the checkout (or its opencl/ folder). Figures only; the exit status is 1 when a
# module is refused or an output fails a check, 2 on wrong usage.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build opt=3 keep="" suite="" use_llc=1 table4=0 native=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --no-llc) use_llc=0; shift ;;
    --table4) table4=1; shift ;;
    --native) native=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "rodinia.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) suite=$1; shift ;;
  esac
done
[ -n "$suite" ] || { echo "rodinia.sh: give the path of a Rodinia 3.1 checkout (see --help)" >&2; exit 2; }
[ -d "$suite/opencl" ] && suite=$suite/opencl
[ -d "$suite" ] || { echo "rodinia.sh: no such directory: $suite" >&2; exit 2; }
reconv=$build/bin/reconv
[ -x "$reconv" ] || { echo "rodinia.sh: $reconv is not built (make build)" >&2; exit 2; }
# shellcheck source=bench/llvm_common.sh
. "$here/bench/llvm_common.sh"
bench_find_tools rodinia.sh need-llc
optbin=$(dirname "$(command -v "$llc")")/opt
work=${keep:-$(mktemp -d /tmp/reconv-rodinia.XXXXXX)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

mapfile -t files < <(cd "$suite" && find . -name '*.cl' | sed 's|^\./||' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || { echo "rodinia.sh: no .cl file under $suite" >&2; exit 2; }

# the block and work-group sizes Rodinia's host programs pass with -D (pathfinder declares its own
# BLOCK_SIZE; b+tree's DEFAULT_ORDER comes from its common.h); heartwall and srad include ./main.h
# from the module's parent folder
defines=(-D RD_WG_SIZE=64 -D RD_WG_SIZE_0=64 -D RD_WG_SIZE_0_0=64 -D BSIZE=16 -D TILE=16
         -D DEFAULT_ORDER=256 -D DEFAULT_ORDER_2=256)

# machine code of llc for gfx900: "function instructions vgprs" per function of FILE.s
machine_counts() {
  bench_asm_instructions "$1" | awk '{ n[$1]++ } END { for (f in n) print f, n[f] }' | LC_ALL=C sort > "$1.ins"
  awk '/^[A-Za-z_$][A-Za-z0-9_.$]*:/ { f = $1; sub(/:$/, "", f) }
       /; NumVgprs: / { print f, $3 }' "$1" | LC_ALL=C sort > "$1.regs"
  LC_ALL=C join -a 1 "$1.ins" "$1.regs"
}
lookup() { awk -v f="$2" -v c="$3" '$1 == f { print $c; found = 1 } END { if (!found) print "-" }' "$1"; }

# Run specifications of the kernels that fault under bench_guess_spec, from what Rodinia 3.1's host
# programs pass (those are not part of the .cl checkout; the file names below are of Rodinia 3.1's
# opencl/ folder), at a smaller but faithful problem size (the interpreter is slow). One option a
# line; a kernel not listed here runs under the guess. Input files (little-endian i32, see
# i32_file) are made in the work directory when a spec first needs them.
# heartwall's and lavaMD's kernel_gpu_opencl take a struct by value (d_common, d_dim_gpu): clang
# passes it on amdgcn as `%NAME.coerce`, given as {V,V,...} (its fields in order, docs/cli.md).
# le_file BYTES PATH: the integers of standard input, one a line, as little-endian integers of
# BYTES bytes each (two's complement, so negative ones too) into PATH
le_file() {
  local v out="" b
  while read -r v; do
    for ((b = 0; b < $1; b++)); do out+=$(printf '\\x%02x' $((v >> 8 * b & 255))); done
  done
  printf '%b' "$out" > "$2"
}
i32_file() { le_file 4 "$1"; }
# a B+ tree of order 256 (DEFAULT_ORDER) in b+tree's knode layout (common.h: location,
# indices[257], keys[257], is_leaf (a bool padded to 4 bytes), num_keys: 517 i32 a node), height 1
# as main.c's transform_to_cuda lays it out: the root (node 0) with 4 children, the leaves 1..4 each
# holding 64 keys (leaf i: keys 64(i-1) .. 64(i-1)+63, record indices equal to the keys); the keys
# after a node's last are INT_MAX so that no work-item past it matches
btree_file() {
  awk 'BEGIN {
    max = 2147483647
    for (n = 0; n < 5; n++) {
      print n
      for (t = 0; t < 257; t++) print (n == 0 ? (t < 4 ? t + 1 : 0) : (t < 64 ? 64 * (n - 1) + t : 0))
      for (t = 0; t < 257; t++) print (n == 0 ? (t < 4 ? 64 * t : max) : (t < 64 ? 64 * (n - 1) + t : max))
      print (n == 0 ? 0 : 1); print (n == 0 ? 4 : 64)
    } }' | i32_file "$1"
}
# streamcluster's Point_Struct (Kernels.cl: float weight, long assign, float cost: 24 bytes, 6 i32)
# for 512 points: weight 1 (the points of streamcluster.cpp's stream weigh 1), assign a centre
# 0..15, cost 8, 16, 32, 64 or 128 (x_cost of 256 coordinates in [0,1) is about 42, so both sides
# of the kernel's branch run)
points_file() {
  awk 'BEGIN { split("1090519040 1098907648 1107296256 1115684864 1124073472", cost, " ")
    for (i = 0; i < 512; i++) print 1065353216 "\n" 0 "\n" (i * 7) % 16 "\n" 0 "\n" cost[i % 5 + 1] "\n" 0 }' | i32_file "$1"
}
# lavaMD's boxes (main.h's box_str: x, y, z, number, long offset, nn, then 26 nei_str of x, y, z,
# number, long offset: 164 i32 a box, a long as two, padding zero) for boxes1d B, as main.c lays
# them out: box (i, j, k) numbered (i * B + j) * B + k, its neighbours the boxes around it inside
# the grid in main.c's order, NUMBER_PAR_PER_BOX (100) particles a box
lavamd_boxes_file() {
  awk -v b="$2" 'BEGIN {
    for (i = 0; i < b; i++) for (j = 0; j < b; j++) for (k = 0; k < b; k++) {
      n = 0
      for (l = -1; l < 2; l++) for (m = -1; m < 2; m++) for (q = -1; q < 2; q++)
        if (i + l >= 0 && j + m >= 0 && k + q >= 0 && i + l < b && j + m < b && k + q < b && (l || m || q)) {
          nx[n] = k + q; ny[n] = j + m; nz[n] = i + l; nb[n] = ((i + l) * b + j + m) * b + k + q; n++
        }
      nh = (i * b + j) * b + k
      print k "\n" j "\n" i "\n" nh "\n" nh * 100 "\n" 0 "\n" n "\n" 0
      for (e = 0; e < 26; e++)
        if (e < n) print nx[e] "\n" ny[e] "\n" nz[e] "\n" nb[e] "\n" nb[e] * 100 "\n" 0
        else print "0\n0\n0\n0\n0\n0"
    } }' | i32_file "$1"
}
# heartwall's run: params_common (main.h, 97 fields in its order) as main.c and
# kernel/kernel_gpu_opencl_wrapper.c derive it, then the buffers the wrapper makes, for frame
# d_frame_no of a video of `frames` frames of rows x cols. Smaller than the input file's (tSize 25,
# sSize 40, maxMove 10; 20 endo and 31 epi points), every size derived by the host's formulas; all
# points start at the frame's centre (the kernel's fixed 25-pixel template offset stays inside),
# frame 10 runs the tracking and the template update (d_frame_no % 10 == 0), the templates being
# input as the earlier frames would have left them
heartwall_spec() {
  awk -v tS=4 -v sS=8 -v mm=4 -v frames=11 -v fno=10 -v rows=64 -v cols=64 -v endo=2 -v epi=2 -v wg=64 'BEGIN {
    n = 0
    v[++n] = 0; v[++n] = 97 * 4; v[++n] = 0; v[++n] = frames # common_change_mem, common_mem, unique_mem, frames_processed
    v[++n] = sS; v[++n] = tS; v[++n] = mm; v[++n] = "0.87" # sSize tSize maxMove alpha
    v[++n] = frames; v[++n] = rows; v[++n] = cols; v[++n] = rows * cols; v[++n] = 4 * rows * cols
    all = endo + epi; v[++n] = endo; v[++n] = 4 * endo; v[++n] = epi; v[++n] = 4 * epi; v[++n] = all
    r = 2 * tS + 1; v[++n] = r; v[++n] = r; v[++n] = r * r; v[++n] = 4 * r * r; v[++n] = 0 # in_*, in_pointer_mem
    r2 = 2 * sS + 1; v[++n] = r2; v[++n] = r2; v[++n] = r2 * r2; v[++n] = 4 * r2 * r2 # in2_*
    cv = r + r2 - 1; v[++n] = cv; v[++n] = cv; v[++n] = cv * cv; v[++n] = 4 * cv * cv; v[++n] = 0; v[++n] = 0 # conv_*
    pc = r2 + 2 * r; v[++n] = r; v[++n] = r; v[++n] = pc; v[++n] = pc; v[++n] = pc * pc; v[++n] = 4 * pc * pc
    sr = pc - 1 - r; v[++n] = sr; v[++n] = pc; v[++n] = sr * pc; v[++n] = 4 * sr * pc # in2_pad_cumv_sel_*
    v[++n] = 1 + r; v[++n] = pc - 1; v[++n] = 1; v[++n] = pc
    hr = pc - r - 1; v[++n] = 1; v[++n] = hr; v[++n] = 1; v[++n] = pc # in2_pad_cumv_sel2_*
    v[++n] = hr; v[++n] = pc; v[++n] = hr * pc; v[++n] = 4 * hr * pc # in2_sub_cumh_*
    hc = pc - 1 - r; v[++n] = hr; v[++n] = hc; v[++n] = hr * hc; v[++n] = 4 * hr * hc # in2_sub_cumh_sel_*
    v[++n] = 1; v[++n] = hr; v[++n] = 1 + r; v[++n] = pc - 1
    c2 = pc - r - 1; v[++n] = 1; v[++n] = hr; v[++n] = 1; v[++n] = c2 # in2_sub_cumh_sel2_*
    v[++n] = hr; v[++n] = c2; v[++n] = hr * c2; v[++n] = 4 * hr * c2 # in2_sub2_*
    v[++n] = r2; v[++n] = r2; v[++n] = r2 * r2; v[++n] = 4 * r2 * r2 # in2_sqr_*
    v[++n] = hr; v[++n] = c2; v[++n] = hr * c2; v[++n] = 4 * hr * c2 # in2_sqr_sub2_*
    v[++n] = r; v[++n] = r; v[++n] = r * r; v[++n] = 4 * r * r # in_sqr_*
    tm = r + r2 - 1; v[++n] = tm; v[++n] = tm; v[++n] = tm * tm; v[++n] = 4 * tm * tm # tMask_*
    v[++n] = mm; v[++n] = mm; v[++n] = mm * mm; v[++n] = 4 * mm * mm # mask_*
    v[++n] = tm; v[++n] = tm; v[++n] = tm * tm; v[++n] = 4 * tm * tm # mask_conv_*
    io = int((mm - 1) / 2) + ((mm - 1) % 2 > 0.5); v[++n] = io; v[++n] = io
    if (n != 97) { print "heartwall_spec: " n " fields, params_common has 97" > "/dev/stderr"; exit 1 }
    s = "{" v[1]; for (i = 2; i <= n; i++) s = s "," v[i]
    print "--global " all * wg "\n--local " wg "\n--arg d_common.coerce=" s "}\n--arg d_frame_no=" fno
    print "--arg d_frame=f32[" rows * cols "]:rand(1)"
    c = rows / 2
    split("d_endoRow " endo " d_endoCol " endo " d_epiRow " epi " d_epiCol " epi " d_tEndoRowLoc " endo * frames \
          " d_tEndoColLoc " endo * frames " d_tEpiRowLoc " epi * frames " d_tEpiColLoc " epi * frames, p, " ")
    for (i = 1; i < 16; i += 2) print "--arg " p[i] "=i32[" p[i + 1] "]:fill(" c ")"
    print "--arg d_endoT=f32[" r * r * endo "]:rand(2)\n--arg d_epiT=f32[" r * r * epi "]:rand(3)"
    split("d_in2_all " r2 * r2 " d_conv_all " cv * cv " d_in2_pad_cumv_all " pc * pc " d_in2_pad_cumv_sel_all " sr * pc \
          " d_in2_sub_cumh_all " hr * pc " d_in2_sub_cumh_sel_all " hr * hc " d_in2_sub2_all " hr * c2 \
          " d_in2_sqr_all " r2 * r2 " d_in2_sqr_sub2_all " hr * c2 " d_in_sqr_all " r * r " d_tMask_all " tm * tm \
          " d_mask_conv_all " tm * tm " d_in_mod_temp_all " r * r " in_partial_sum_all " r " in_sqr_partial_sum_all " r \
          " par_max_val_all " tm " in_final_sum_all 1 in_sqr_final_sum_all 1 denomT_all 1", q, " ")
    for (i = 1; i < 38; i += 2) print "--arg " q[i] "=f32[" q[i + 1] * all "]"
    print "--arg par_max_coo_all=i32[" tm * all "]\n--arg checksum=f32[100]"
  }'
}
rodinia_spec() { # rodinia_spec REL KERNEL: the table's options, one a line, or nothing
  case "$1:$2" in
    b+tree/kernel/kernel_gpu_opencl.cl:findK)
      # kernel/kernel_gpu_opencl_wrapper.c: one work-group of order (256) work-items per query,
      # currKnodeD and offsetD zeroed (the root), knodes_elem the number of nodes; 4 queries
      [ -f "$work/btree.bin" ] || btree_file "$work/btree.bin"
      printf '%s\n' "--global 1024" "--local 256" "--arg height=1" "--arg knodesD=i32[2585]:file($work/btree.bin)" \
        "--arg knodes_elem=5" "--arg recordsD=i32[256]:rand(1)" "--arg currKnodeD=i64[4]" "--arg offsetD=i64[4]" \
        "--arg keysD=i32[4]:rand(2,0,255)" "--arg ansD=i32[4]" ;;
    b+tree/kernel/kernel_gpu_opencl_2.cl:findRangeK)
      # kernel/kernel_gpu_opencl_wrapper_2.c: as findK, with the start and end keys of 4 ranges
      [ -f "$work/btree.bin" ] || btree_file "$work/btree.bin"
      printf '%s\n' "--global 1024" "--local 256" "--arg height=1" "--arg knodesD=i32[2585]:file($work/btree.bin)" \
        "--arg knodes_elem=5" "--arg currKnodeD=i64[4]" "--arg offsetD=i64[4]" "--arg lastKnodeD=i64[4]" \
        "--arg offset_2D=i64[4]" "--arg startD=i32[4]:rand(3,0,127)" "--arg endD=i32[4]:rand(4,128,255)" \
        "--arg RecstartD=i32[4]" "--arg ReclenD=i32[4]" ;;
    dwt2d/com_dwt.cl:cl_fdwt53Kernel)
      # main.cpp's fdwt53 for a 64 x 64 image (launchFDWT53Kernel(64, 8, ...)): windows of 64 x 8,
      # steps = ceil(sy / (15 * 8)) = 1, groups of (WIN_SX, 1) on a grid of ceil(sx / 64) x
      # ceil(sy / (8 * steps)); in and out are sx * sy pixels
      printf '%s\n' "--global 64,8" "--local 64,1" "--arg in=i32[4096]:rand(1,0,255)" "--arg out=i32[4096]" \
        "--arg sx=64" "--arg sy=64" "--arg steps=1" "--arg WIN_SIZE_X=64" "--arg WIN_SIZE_Y=8" ;;
    leukocyte/track_ellipse_kernel.cl:IMGVF_kernel|leukocyte/track_ellipse_kernel_opt.cl:IMGVF_kernel|\
    leukocyte/OpenCL/track_ellipse_kernel.cl:IMGVF_kernel|leukocyte/OpenCL/track_ellipse_kernel_opt.cl:IMGVF_kernel)
      # OpenCL/track_ellipse_opencl.c (IMGVF_OpenCL, IMGVF_OpenCL_init): one work-group of 256 per
      # cell, each cell's m x n matrix at I_offsets[cell] in IMGVF_array and I_array (both the same
      # image I, as IMGVF_OpenCL_init copies it to both); 2 cells of
      # 41 x 81 (the kernel's largest, its __local IMGVF[41 * 81]) normalised to [0, 1) as MGVF does;
      # track_ellipse.c: vx = vy = 1 (MGVF(IE, 1, 1, Nc)), e = epsilon 1e-10, max_iterations 500,
      # cutoff = converge 0.00001
      printf '%s\n' "--global 512" "--local 256" "--arg IMGVF_array=f32[6642]:rand(1)" "--arg I_array=f32[6642]:rand(1)" \
        "--arg I_offsets=i32[2]:seq(0,3321)" "--arg m_array=i32[2]:fill(41)" "--arg n_array=i32[2]:fill(81)" \
        "--arg vx=1.0" "--arg vy=1.0" "--arg e=1e-10" "--arg max_iterations=500" "--arg cutoff=0.00001" ;;
    heartwall/kernel/kernel_gpu_opencl.cl:kernel_gpu_opencl)
      heartwall_spec ;;
    lavaMD/kernel/kernel_gpu_opencl.cl:kernel_gpu_opencl)
      # main.c with -boxes1d 2: par alpha 0.5; dim_str {cur_arg (argc, 3), arch_arg, cores_arg (not
      # set: 0), boxes1d_arg, number_boxes, box_mem (656 bytes a box), space_elem (100 a box),
      # space_mem (16 bytes a FOUR_VECTOR), space_mem2}; one work-group of NUMBER_THREADS (the
      # kernel file's 128) a box; rv and qv random in [0.1, 1) as main.c's (rand() % 10 + 1) / 10
      [ -f "$work/boxes.bin" ] || lavamd_boxes_file "$work/boxes.bin" 2
      printf '%s\n' "--global 1024" "--local 128" "--arg d_par_gpu.coerce=0.5" \
        "--arg d_dim_gpu.coerce={3,0,0,2,8,5248,800,12800,3200}" "--arg d_box_gpu=i32[1312]:file($work/boxes.bin)" \
        "--arg d_rv_gpu=f32[3200]:rand(1,0.1,1.0)" "--arg d_qv_gpu=f32[800]:rand(2,0.1,1.0)" "--arg d_fv_gpu=f32[3200]" ;;
    streamcluster/Kernels.cl:pgain_kernel)
      # streamcluster_cl.h (pGain): num points rounded up to groups of THREADS_PER_BLOCK (256) by
      # CLHelper.h's _clInvokeKernel; the kernel's barrier is under thread_id < num, so num is a
      # multiple of 256 as the run script's chunk size 65536 is (here 512); dim 256 (the run
      # script's d), coord_d dim * num, work_mem_d (K + 1) * num zeroed, coord_s dim floats of
      # local memory, center_table_d an index 0..K-1 per point, x a point
      [ -f "$work/points.bin" ] || points_file "$work/points.bin"
      printf '%s\n' "--global 512" "--local 256" "--arg p=i32[3072]:file($work/points.bin)" \
        "--arg coord_d=f32[131072]:rand(2)" "--arg work_mem_d=f32[8704]" "--arg center_table_d=i32[512]:rand(3,0,15)" \
        "--arg switch_membership_d=i8[512]" "--arg coord_s=local:f32[256]" "--arg num=512" "--arg dim=256" \
        "--arg x=5" "--arg K=16" ;;
  esac
}

# native_check REL NAME KERNEL SIG SPEC...: the spir64 compile of module NAME (made once) and its
# linearization, run natively under SPEC with its `NAME.coerce` arguments rewritten for spir64: a
# {V,...} value becomes a buffer of the image the interpreter makes of it (`reconv run --dump` of
# the amdgcn kernel), a scalar a buffer of one element of its type (SIG: the amdgcn signature)
native_check() {
  local rel=$1 name=$2 k=$3 sig=$4; shift 4
  local spec=("$@") out=() i=0 a p t
  if [ ! -f "$work/$name.spir.lin.ll" ]; then
    bench_compile_cl "$suite/$rel" "$work/$name.spir.ll" -O2 "${defines[@]}" "${extra[@]}" -I "$dir" -I "$dir/.." \
      -target spir64-unknown-unknown 2> "$work/$name.spir.clang.log" &&
    "$reconv" opt -p "linearize[opt=$opt]" "$work/$name.spir.ll" -o "$work/$name.spir.lin.ll" 2> "$work/$name.spir.err" ||
      return 2
  fi
  while [ $i -lt ${#spec[@]} ]; do
    a=${spec[$((i + 1))]:-}
    if [ "${spec[$i]}" = --arg ] && [[ $a == *.coerce=* ]]; then
      p=${a%%.coerce=*}
      if [[ ${a#*=} == \{* ]]; then
        "$reconv" run --kernel "$k" "$work/$name.ll" "${spec[@]}" --dump "$p.coerce" 2> /dev/null |
          awk -v head="%$p.coerce:" '$0 == head { on = 1; next }
                                     on && /^ *[0-9]+:/ { for (j = 2; j <= NF; j++) print $j; next }
                                     on { exit }' | le_file 1 "$work/$name.$k.$p.bin"
        out+=(--arg "$p=i8[$(wc -c < "$work/$name.$k.$p.bin")]:file($work/$name.$k.$p.bin)")
      else
        t=$(printf '%s' "$sig" | grep -o "[a-z0-9]* %$p\.coerce" | cut -d' ' -f1)
        out+=(--arg "$p=$t[1]:fill(${a#*=})")
      fi
      i=$((i + 2))
      continue
    fi
    out+=("${spec[$i]}")
    i=$((i + 1))
  done
  "$reconv" equiv --native --kernel "$k" "$work/$name.spir.ll" "$work/$name.spir.lin.ll" "${out[@]}" \
    > "$work/$name.$k.native.log" 2>&1 || return 1
}

status=0 nmod=0 nref=0 nbad=0
stats=$work/all.tsv
: > "$stats"
refusals=""
for rel in "${files[@]}"; do
  nmod=$((nmod + 1))
  name=$(printf '%s' "${rel%.cl}" | tr '/+' '__')
  dir=$suite/$(dirname "$rel")
  extra=(-D BLOCK_SIZE=16)
  case "$rel" in pathfinder/*) extra=() ;; esac
  if ! bench_compile_cl "$suite/$rel" "$work/$name.ll" -O2 "${defines[@]}" "${extra[@]}" -I "$dir" -I "$dir/.." \
      2> "$work/$name.clang.log"; then
    refusals+="$rel: clang could not compile it"$'\n'; status=1; continue
  fi
  if ! "$reconv" opt -p "linearize[opt=$opt]" "$work/$name.ll" -o "$work/$name.lin.ll" --stats --json \
      > "$work/$name.json" 2> "$work/$name.err"; then
    nref=$((nref + 1)); status=1
    refusals+="$rel: REFUSED: $(grep -m1 'error:' "$work/$name.err" | sed 's/^.*error: //')"$'\n'
    continue
  fi
  verified=ok
  "$optbin" -passes=verify -disable-output "$work/$name.lin.ll" 2> "$work/$name.verify.log" || verified=verifier-FAIL
  printf '%s\n' "- -" > "$work/$name.m0"; cp "$work/$name.m0" "$work/$name.m1"
  if [ $use_llc -eq 1 ]; then
    bench_llc "$work/$name.ll" "$work/$name.s" gfx900 2> /dev/null && machine_counts "$work/$name.s" > "$work/$name.m0"
    bench_llc "$work/$name.lin.ll" "$work/$name.lin.s" gfx900 2> /dev/null && machine_counts "$work/$name.lin.s" > "$work/$name.m1"
  fi
  "$reconv" print "$work/$name.ll" 2> /dev/null | grep -E '^(wave )?kernel @' > "$work/$name.sigs"
  while IFS= read -r line; do
    k=$(printf '%s' "$line" | sed 's/^{"kernel": "\([^"]*\)".*/\1/')
    num() { printf '%s' "$line" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"; }
    check=$verified
    case "$line" in *'"already_structured": 1'*) check=unchanged ;; esac
    sig=$(grep -m1 "^\(wave \)\{0,1\}kernel @$k(" "$work/$name.sigs")
    if [ "$check" = ok ] && [ -z "$sig" ]; then check=function
    elif [ "$check" = ok ]; then
      spec_text=$(rodinia_spec "$rel" "$k")
      [ -n "$spec_text" ] || spec_text=$(bench_guess_spec "$sig")
      read -r -a spec <<< "$(tr '\n' ' ' <<< "$spec_text")"
      printf '%s\n' "${spec[@]}" > "$work/$name.$k.spec"
      if ! "$reconv" run --kernel "$k" "$work/$name.ll" "${spec[@]}" > "$work/$name.$k.run.log" 2>&1; then check=no-spec
      elif "$reconv" equiv --kernel "$k" "$work/$name.ll" "$work/$name.lin.ll" "${spec[@]}" \
             > "$work/$name.$k.equiv.log" 2>&1; then check=equivalent
        if [ $native -eq 1 ]; then
          native_check "$rel" "$name" "$k" "$sig" "${spec[@]}"
          case $? in 0) check=equivalent+native ;; 1) check=native-NOT-equivalent ;; *) check=equivalent,no-spir64 ;; esac
        fi
      elif grep -q 'the first program faults' "$work/$name.$k.equiv.log"; then check=no-spec
      else check=NOT-equivalent; fi
    fi
    case "$check" in verifier-FAIL|NOT-equivalent|native-NOT-equivalent) nbad=$((nbad + 1)); status=1 ;; esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rel" "$k" "$(num blocks_before)" "$(num blocks_after)" \
      "$(num instructions_before)" "$(num instructions_after)" \
      "$(lookup "$work/$name.m0" "$k" 2)" "$(lookup "$work/$name.m1" "$k" 2)" \
      "$(lookup "$work/$name.m0" "$k" 3)" "$(lookup "$work/$name.m1" "$k" 3)" "$check" "$(num regions)" \
      "$(num joins_split)" >> "$stats"
  done < "$work/$name.json"
done
# the table (changed functions first), the paper's Table 1 figures beside the kernels it measured
# (PTX instructions and blocks after its optimisations), the totals over the changed functions
awk -F'\t' -v nmod="$nmod" -v nref="$nref" -v nbad="$nbad" '
function ratio(a, b) { return (a == "-" || b == "-" || a == 0) ? "-" : sprintf("%.2f", b / a) }
BEGIN {
  printf "%-40s %-24s %5s %5s %5s %6s %6s %5s %6s %6s %5s %4s %4s  %s\n", "module", "function", "blk", "blk'\''",
         "x", "ins", "ins'\''", "x", "mins", "mins'\''", "x", "vgpr", "vgpr'\''", "regions/joins split, check"
}
{
  changed = $11 != "unchanged"
  paper = ""
  if ($1 ~ /^hotspot\// && $2 == "hotspot") paper = "  [paper: ins 1.04x, blk 1.27x]"
  if ($1 ~ /^particlefilter\// && $2 ~ /kernel$/) paper = "  [paper, particlefilter: ins 1.10x, blk 1.20x]"
  line = sprintf("%-40s %-24s %5d %5d %5s %6d %6d %5s %6s %6s %5s %4s %4s  %s%s", $1, $2, $3, $4, ratio($3, $4),
                 $5, $6, ratio($5, $6), $7, $8, ratio($7, $8), $9, $10, changed ? ($12 + 0) "/" ($13 + 0) " " $11 : $11, paper)
  if (changed) {
    print line
    tb0 += $3; tb1 += $4; ti0 += $5; ti1 += $6; nchanged++
    if ($7 != "-" && $8 != "-") { tm0 += $7; tm1 += $8 }
    if ($5 >= 50 && $6 > 1.3 * $5) worst = worst sprintf("  %s @%s: %.2fx\n", $1, $2, $6 / $5)
  } else { same = same line "\n"; nsame++ }
}
END {
  if (nsame) printf "-- left as they were (already structured):\n%s", same
  printf "\n%d modules: %d refused by linearize, %d functions failed a check; %d functions changed, %d left as they were\n",
         nmod, nref, nbad, nchanged, nsame
  if (nchanged) {
    printf "changed functions in total: blocks %d -> %d (%.3fx; the paper: at most 1.27x)\n", tb0, tb1, tb1 / tb0
    printf "                            instructions %d -> %d (%.3fx; the paper: at most 1.10x)\n", ti0, ti1, ti1 / ti0
    if (tm0) printf "                            machine instructions (gfx900, kernels) %d -> %d (%.3fx)\n", tm0, tm1, tm1 / tm0
  }
  printf "functions of 50 or more instructions above 1.3x:%s\n", worst == "" ? " none" : "\n" worst
}' "$stats"
[ -z "$refusals" ] || printf '\nrefused:\n%s' "$refusals"

# Table 4's kind: instructions executed (vector + scalar) by the original (Orig) and by linearize at
# opt=0..3 (O0 is the paper's "After"), on the IPDOM-stack model and on the wave simulator, for the
# kernels that ran under their specification. A count is checked against the interpreter
# (--check); "N*" where the run's memory differs from the interpreter's (the count then comes from
# a run without --check; the footnote says when the original differs too: the input makes
# the kernel race), "refused" where linearize refuses the kernel at that level
executed() { # executed MODE PASSES FILE KERNEL SPEC...
  local mode=$1 passes=$2 file=$3 k=$4 out mark=""
  shift 4
  if ! out=$("$reconv" sim --mode "$mode" ${passes:+-p "$passes"} --check --json --kernel "$k" "$file" "$@" 2> "$work/sim.err"); then
    if grep -q 'error: linearize' "$work/sim.err"; then echo refused; return; fi
    mark="*"
    out=$("$reconv" sim --mode "$mode" ${passes:+-p "$passes"} --json --kernel "$k" "$file" "$@" 2> /dev/null) || { echo fail; status=1; return; }
  fi
  # the kernel's own counts follow its "waves" (each block's follow its "entries")
  printf '%s' "$out" | sed -n 's/.*"waves": [0-9]*, "vector_instructions": \([0-9]*\), "scalar_instructions": \([0-9]*\),.*/\1 \2/p' |
    awk -v m="$mark" '{ print $1 + $2 m }'
}
if [ $table4 -eq 1 ]; then
  printf '\nTable 4 (kind): instructions executed (vector + scalar, waves of 32), each run checked against the interpreter\n'
  printf '%-40s %-24s %-6s %9s %9s %9s %9s %9s %6s\n' module function model Orig O0 O1 O2 O3 O3/Orig
  while IFS=$'\t' read -r rel k _ _ _ _ _ _ _ _ check _; do
    case "$check" in equivalent*) ;; *) continue ;; esac
    name=$(printf '%s' "${rel%.cl}" | tr '/+' '__')
    mapfile -t spec < "$work/$name.$k.spec"
    for model in ipdom wave; do
      row=()
      for lvl in orig 0 1 2 3; do
        if [ $model = ipdom ]; then passes=""; [ $lvl = orig ] || passes="linearize[opt=$lvl]"
        else passes="reconverge,lower"; [ $lvl = orig ] || passes="linearize[opt=$lvl],reconverge,lower"; fi
        row+=("$(executed "$model" "$passes" "$work/$name.ll" "$k" "${spec[@]}")")
      done
      printf '%-40s %-24s %-6s %9s %9s %9s %9s %9s %6s\n' "$rel" "$k" "$model" "${row[@]}" \
        "$(awk -v a="${row[0]}" -v b="${row[4]}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", b / a; else print "-" }')"
      case "${row[0]}" in *'*') races+=" $k/$model" ;; esac
    done
  done < "$stats"
  [ -z "${races:-}" ] || printf '* not checked: the original differs from the interpreter too (races under its input):%s\n' "$races"
fi
echo "work files: $work${keep:+ (kept)}"
exit $status
