// after the NVIDIA OpenCL SDK's oclHiddenMarkovModel: one Viterbi step, a max-plus over previous states with the argmax
// reconv-run(ViterbiOneStep): --global 16 --local 16 --arg maxProbNew=f32[16] --arg path=i32[16] --arg maxProbOld=f32[16]:rand(221,-5,0) --arg mtState=f32[256]:rand(222,-3,0) --arg mtEmit=f32[64]:rand(223,-3,0) --arg obs=2 --arg nState=16
__kernel void ViterbiOneStep(__global float *maxProbNew, __global int *path, __global const float *maxProbOld,
                             __global const float *mtState, __global const float *mtEmit, int obs, int nState) {
  int iState = get_global_id(0);
  if (iState >= nState) return;
  float maxProb = -INFINITY;
  int maxState = -1;
  for (int preState = 0; preState < nState; preState++) {
    float p = maxProbOld[preState] + mtState[iState * nState + preState];
    if (p > maxProb) { maxProb = p; maxState = preState; }
  }
  maxProbNew[iState] = maxProb + mtEmit[obs * nState + iState];
  path[iState] = maxState;
}
