# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FATTN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fattn_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# The sanitizer build (FATTN_ENABLE_SANITIZERS): LLVM's headers poison BumpPtrAllocator slabs
# in fattn's instrumented code, which Debian's uninstrumented libraries then use unpoisoned.
# The user's ASAN_OPTIONS come after, so they win.
config.environment["ASAN_OPTIONS"] = ":".join(
    o for o in ("allow_user_poisoning=0", os.environ.get("ASAN_OPTIONS", "")) if o)
llvm_config.use_default_substitutions()

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fattn_src_root", config.fattn_src_root))
config.substitutions.append(("%python", config.python_executable))
runner_libs = ",".join(
    os.path.join(config.llvm_lib_dir, name)
    for name in ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so"))
config.substitutions.append(("%mlir_runner_libs", runner_libs))

tool_dirs = [config.fattn_tools_dir, config.llvm_tools_dir]
tools = ["fattn-opt", "mlir-runner", "mlir-translate", ToolSubst("%mlir_runner", "mlir-runner")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The CPU execution oracle (test/Execution/attention_oracle.py).
config.substitutions.append((
    "%oracle",
    f"{config.python_executable} {config.fattn_src_root}/test/Execution/attention_oracle.py "
    f"--opt {config.fattn_tools_dir}/fattn-opt --runner {config.llvm_tools_dir}/mlir-runner "
    f"--shared-libs {runner_libs}"))

# The CPU oracle of fattn.attention_grad (test/Execution/attention_grad_oracle.py).
config.substitutions.append((
    "%grad_oracle",
    f"{config.python_executable} {config.fattn_src_root}/test/Execution/attention_grad_oracle.py "
    f"--opt {config.fattn_tools_dir}/fattn-opt --runner {config.llvm_tools_dir}/mlir-runner "
    f"--shared-libs {runner_libs}"))

# Unit tests (googletest executables), when they were built.
unittests_dir = os.path.join(config.fattn_obj_root, "unittests")
config.substitutions.append(("%fattn_unittests_dir", unittests_dir))
if os.path.exists(os.path.join(unittests_dir, "FAttnUtilsTests")):
    config.available_features.add("fattn-unittests")
if os.path.exists(os.path.join(unittests_dir, "Runtime", "FAttnRuntimeTests")):
    config.available_features.add("fattn-runtime-unittests")

# sm_80 (issue 3): fattn-compile, the layout unit test, and ptxas (feature
# "ptxas", substitution %ptxas) for the PTX acceptance tests.
llvm_config.add_tool_substitutions(["fattn-compile", "fattn-sm80-layout-test", "not"], tool_dirs)
import shutil
_ptxas = [p for p in (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas"),
                      "/usr/local/cuda/bin/ptxas", shutil.which("ptxas") or "")
          if p and os.access(p, os.X_OK)]
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas[0]))

# A Python with numpy (lit's own, or the system's): the sm_80 backward
# kernels' L3 emulation (test/Execution/sm80_grad_emulator.py).
import subprocess
for _python in (config.python_executable, "/usr/bin/python3"):
    if os.access(_python, os.X_OK) and subprocess.run(
            [_python, "-c", "import numpy"], capture_output=True).returncode == 0:
        config.available_features.add("numpy")
        config.substitutions.append(("%numpy_python", _python))
        break

# sm_90a (issue 4): the PTX tests take the pipeline's output through upstream
# mlir-opt (gpu-module-to-binary needs the LLVM IR translations).
llvm_config.add_tool_substitutions(["mlir-opt"], tool_dirs)

# The host-launch pipelines' code run against a recording mgpu* runtime
# (test/Pipelines/Inputs/mgpu_recorder.c): llc and a C compiler.
llvm_config.add_tool_substitutions(["llc"], tool_dirs)
_host_cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
if _host_cc:
    config.available_features.add("host-cc")
    config.substitutions.append(("%host_cc", _host_cc))
