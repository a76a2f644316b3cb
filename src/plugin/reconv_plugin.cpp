// libreconv-plugin.so: reconv's passes in LLVM's new pass manager, for `opt -load-pass-plugin` and
// `clang -fpass-plugin` (docs/llvm.md, "The pass plugin"). The only C++ of the project, and thin on
// purpose: it parses the pass name, hands the module to the C library's in-place path
// (rc_llvm_transform_module: import, pipeline, export into the module itself, as `reconv opt -p
// PIPELINE in.ll -o out.ll` does) and turns reconv's diagnostics into LLVM's.
//
//   opt -load-pass-plugin=libreconv-plugin.so -passes='reconverge<order=dfpd;all-divergent>' ...
//
// Names: reconverge, linearize and meld, and every pass of reconv's pipelines as reconv-NAME
// (reconv-lowerswitch: LLVM has a lowerswitch of its own). Options are reconv's
// (`reconverge[order=dfpd,all-divergent]`), in LLVM's spelling: angle brackets, `;` between them
// (opt's pipeline parser splits at commas). With clang the plugin adds reconverge at the end of the
// optimisation pipeline (the OptimizerLast extension point, where the CFG is final), or the pipeline
// RECONV_PLUGIN_PIPELINE names in reconv's syntax ("" or "none": nothing).
//
// LLVM's libraries are not linked in: the opt or clang that loads the plugin provides them, and
// it must be of the LLVM version the plugin was built with.
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

#include "reconv/llvm.h"
#include "reconv/transform.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// A diagnostic of reconv's, reported through the module's LLVMContext (clang shows it as its own,
// opt prints it and, for an error, stops with status 1).
class ReconvDiagnostic : public llvm::DiagnosticInfo {
  const std::string &Msg;

public:
  ReconvDiagnostic(llvm::DiagnosticSeverity Sev, const std::string &M) : DiagnosticInfo(kind(), Sev), Msg(M) {}
  void print(llvm::DiagnosticPrinter &DP) const override { DP << Msg; }
  static int kind() {
    static const int K = llvm::getNextAvailablePluginDiagnosticKind();
    return K;
  }
};

// What reconv reported while the pass ran: warnings and notes go to LLVM at once, errors are kept
// and reported once the module is safe again (an error stops opt on the spot).
struct Collected {
  llvm::LLVMContext *Ctx;
  std::string Errors;
};

void onDiagnostic(void *User, const rc_diag *D) {
  auto *C = static_cast<Collected *>(User);
  std::string Text;
  if (D->file && *D->file) {
    Text += D->file;
    if (D->line) Text += ":" + std::to_string(D->line) + ":" + std::to_string(D->col);
    Text += ": ";
  }
  Text += D->message;
  if (D->severity == RC_SEV_ERROR) {
    if (!C->Errors.empty()) C->Errors += "\n";
    C->Errors += Text;
    return;
  }
  C->Ctx->diagnose(ReconvDiagnostic(D->severity == RC_SEV_WARNING ? llvm::DS_Warning : llvm::DS_Note, Text));
}

struct ReconvPass : llvm::PassInfoMixin<ReconvPass> {
  std::string Pipeline; // in reconv's syntax: reconverge[order=dfpd]

  explicit ReconvPass(std::string P) : Pipeline(std::move(P)) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    Collected C{&M.getContext(), {}};
    rc_ctx Ctx;
    rc_ctx_init(&Ctx);
    Ctx.diag = onDiagnostic;
    Ctx.diag_user = &C;
    // the verifier between passes, as reconv opt runs them (cli_ctx_init)
    const char *V = std::getenv("RECONV_VERIFY_EACH");
    Ctx.verify_each = !(V && std::strcmp(V, "0") == 0);
    if (rc_llvm_transform_module(&Ctx, llvm::wrap(&M), Pipeline.c_str()) != 0) {
      // A failed export can leave a function half edited: such a function loses its body (it
      // becomes a declaration), so that whatever runs after the error sees a valid module.
      for (llvm::Function &F : M)
        if (!F.isDeclaration() && llvm::verifyFunction(F)) F.deleteBody();
      if (C.Errors.empty()) C.Errors = "reconv: " + Pipeline + " failed";
      M.getContext().diagnose(ReconvDiagnostic(llvm::DS_Error, C.Errors));
    }
    return llvm::PreservedAnalyses::none();
  }
  static bool isRequired() { return true; } // also at -O0 and on optnone functions
};

// reconv's pipeline for an LLVM pass name, or "" when the name is not one of the plugin's:
// reconverge<order=dfpd;all-divergent> -> reconverge[order=dfpd,all-divergent].
std::string reconvPipeline(llvm::StringRef Name) {
  llvm::StringRef Base = Name.take_until([](char c) { return c == '<'; });
  llvm::StringRef Params = Name.drop_front(Base.size());
  if (!Params.empty() && !(Params.consume_front("<") && Params.consume_back(">"))) return "";
  std::string Pass;
  if (Base == "reconverge" || Base == "linearize" || Base == "meld") Pass = Base.str();
  else if (Base.size() > 7 && Base.substr(0, 7) == "reconv-") Pass = Base.drop_front(7).str();
  if (Pass.empty() || !rc_pass_lookup(Pass.c_str())) return "";
  if (Params.empty()) return Pass;
  std::string Args = Params.str();
  for (char &c : Args)
    if (c == ';') c = ',';
  return Pass + "[" + Args + "]";
}

void registerCallbacks(llvm::PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::ModulePassManager &MPM, llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        std::string P = reconvPipeline(Name);
        if (P.empty()) return false;
        MPM.addPass(ReconvPass(P));
        return true;
      });
  PB.registerOptimizerLastEPCallback([](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
    const char *P = std::getenv("RECONV_PLUGIN_PIPELINE");
    if (!P) P = "reconverge";
    if (*P && std::strcmp(P, "none") != 0) MPM.addPass(ReconvPass(P));
  });
}

// The LLVM major version of the process that loaded the plugin, or 0 when it does not say: its C
// API tells from LLVM 16 on (LLVMGetVersion), a shared libLLVM by its symbol versions (LLVM_14).
// The plugin API's version is 1 in every LLVM since 11, so opt would not notice a plugin of another
// LLVM until a call into it failed ("symbol lookup error").
unsigned hostMajor() {
  using GetVersion = void (*)(unsigned *, unsigned *, unsigned *);
  if (void *F = dlsym(RTLD_DEFAULT, "LLVMGetVersion")) {
    unsigned Major = 0, Minor = 0, Patch = 0;
    reinterpret_cast<GetVersion>(F)(&Major, &Minor, &Patch);
    return Major;
  }
  std::string Mine = "LLVM_" + std::to_string(LLVM_VERSION_MAJOR);
  if (dlvsym(RTLD_DEFAULT, "LLVMContextCreate", Mine.c_str())) return LLVM_VERSION_MAJOR;
  return 0;
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  unsigned Host = hostMajor();
  // a host without LLVMGetVersion is older than LLVM 16
  bool Mismatch = Host ? Host != LLVM_VERSION_MAJOR : LLVM_VERSION_MAJOR >= 16;
  if (Mismatch) {
    // API version 0: opt and clang refuse the plugin with an error of their own
    if (Host) std::fprintf(stderr, "libreconv-plugin.so: built for LLVM %d, loaded into LLVM %u: load the plugin built with this LLVM\n", LLVM_VERSION_MAJOR, Host);
    else std::fprintf(stderr, "libreconv-plugin.so: built for LLVM %d, loaded into an LLVM older than 16: load the plugin built with this LLVM\n", LLVM_VERSION_MAJOR);
    return {0, "reconv", RECONV_VERSION, nullptr};
  }
  return {LLVM_PLUGIN_API_VERSION, "reconv", RECONV_VERSION, registerCallbacks};
}
