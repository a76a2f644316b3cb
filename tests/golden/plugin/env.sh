# Sourced by the pass plugin's tests: where the plugin and the LLVM it was built for are. The build
# directory is that of the reconv on PATH (RECONV_BUILD_DIR under ctest), the plugin its
# lib/libreconv-plugin.so, and opt and clang those of reconv.pc's llvm_bindir: the plugin must be
# loaded into the opt or clang of the LLVM it (and reconv) was built with.
build=${RECONV_BUILD_DIR:-$(dirname "$(command -v reconv)")/..}
plugin=$(cd "$build" && pwd)/lib/libreconv-plugin.so
bindir=$(sed -n 's/^llvm_bindir=//p' "$build/reconv.pc")
opt=$bindir/opt
clang=$bindir/clang
