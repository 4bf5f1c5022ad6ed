// hone-warp-loops: the clang plugin (new pass manager) that emu's kernel compile loads. Early in
// the pipeline it marks every function that meets a barrier for inlining, so that a kernel's
// barriers all end up in its trampoline; last, it rewrites each trampoline it can as loops over
// the block's threads (warp_loops.hpp). A trampoline it cannot rewrite stays as it was, and the
// runtime runs it as fibers. HONE_WARP_LOOPS_REPORT=1 names each trampoline and why it stays.
#include <cstdlib>

#include "barrier_regions.hpp"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "warp_loops.hpp"

namespace {

using namespace llvm;

bool is_trampoline(const Function& f) { return !f.isDeclaration() && f.getName().startswith("hone_emu_invoke_"); }

struct InlineBarrierCallers : PassInfoMixin<InlineBarrierCallers> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    bool changed = false;
    for (const Function* f : hone::warp_loops::functions_meeting_barriers(m)) {
      auto* g = const_cast<Function*>(f);
      if (is_trampoline(*g) || g->hasFnAttribute(Attribute::NoInline)) continue;
      g->addFnAttr(Attribute::AlwaysInline);
      changed = true;
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

struct RunAsWarpLoops : PassInfoMixin<RunAsWarpLoops> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    const char* report = std::getenv("HONE_WARP_LOOPS_REPORT");
    const auto meets = hone::warp_loops::functions_meeting_barriers(m);
    bool changed = false;
    for (Function& f : m) {
      if (!is_trampoline(f)) continue;
      const std::string why = hone::warp_loops::run_as_warp_loops(f, meets);
      changed = true;  // the search for regions splits blocks even when it gives up
      if (report && *report == '1')
        errs() << "hone-warp-loops: " << f.getName() << (why.empty() ? ": loops" : ": fibers, " + why) << "\n";
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "hone-warp-loops", "1", [](PassBuilder& builder) {
            builder.registerPipelineStartEPCallback(
                [](ModulePassManager& passes, OptimizationLevel) { passes.addPass(InlineBarrierCallers()); });
            builder.registerOptimizerLastEPCallback(
                [](ModulePassManager& passes, OptimizationLevel) { passes.addPass(RunAsWarpLoops()); });
          }};
}
