//===- KernelSymbol.cpp - names that may become kernel symbols ------------===//

#include "fattn/Conversion/FAttnToNVVM/KernelSymbol.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fattn;

// PTX identifiers are [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+ (PTX ISA,
// "Identifiers"). A leading `$` or `%` is left out: MLIR prints such a
// symbol quoted (the sm_90a lowering writes names unquoted), and `%` is
// PTX's prefix for special registers.
static bool isFollowingChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$';
}

std::string mlir::fattn::kernelSymbolError(StringRef name) {
  if (name.empty())
    return "is empty";
  if (name == "_")
    return "is '_' alone, which PTX does not accept";
  if (!llvm::isAlpha(name.front()) && name.front() != '_')
    return ("starts with '" + name.take_front(1) + "'").str();
  for (auto [i, c] : llvm::enumerate(name))
    if (!isFollowingChar(c))
      return ("has '" + StringRef(&name.data()[i], 1) + "' at position " +
              Twine(i))
          .str();
  if (name == kSharedMemorySymbol)
    return "is the kernels' shared-memory global";
  return "";
}

LogicalResult mlir::fattn::checkKernelSymbol(Operation *op, StringRef what,
                                             StringRef name) {
  std::string why = kernelSymbolError(name);
  if (why.empty())
    return success();
  return op->emitOpError()
         << what << " '" << name << "' " << why
         << ": expected a letter or '_', then letters, digits, '_' or '$' "
            "(a PTX identifier), other than '_' and '"
         << kSharedMemorySymbol << "'";
}
