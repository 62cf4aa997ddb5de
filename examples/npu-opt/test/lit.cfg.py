# The lit suite of npu-opt (run by `cmake --build <build> --target check-npu-opt`): npu-opt,
# npu-translate and npu-lsp-server against lattice-opt, LLVM's FileCheck and the shipped cases.
# RUN lines run in the system shell (loops over the cases); %shared is the workloads' directory,
# %repo the repository, %lattice_include and %mlir_include the packages' headers (ODS files).
import os
import sys

import lit.formats

config.name = "npu-opt"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lsp_client.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.npu_binary_dir, "test")
config.substitutions.append(("%shared", os.path.join(config.repo, "..", "shared")))
config.substitutions.append(("%repo", config.repo))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%lattice_include", config.lattice_include))
config.substitutions.append(("%mlir_include", config.mlir_include))
# Tests of how the tools are linked run only where they were linked that way.
if config.static_llvm.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("static-llvm")
config.environment["PATH"] = os.pathsep.join(
    [
        config.npu_binary_dir,
        os.path.dirname(config.filecheck),
        config.lattice_tools,
        config.environment.get("PATH", os.environ.get("PATH", "")),
    ]
)
