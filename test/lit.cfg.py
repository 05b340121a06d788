# Configuration for LLVM's `lit` (pip install lit), so that it runs the same test files as
# ember-lit (test/harness): same suffixes, same rule for RUN lines, bash with pipefail, the same
# substitutions, and the Ember tools and LLVM 22's FileCheck first in PATH.
#
#   lit -sv test/                       # tools from target/debug ($CARGO_TARGET_DIR/debug)
#   lit -sv --param tools_dir=DIR test/ # or from DIR (also: EMBER_TOOLS_DIR=DIR)

import os
import sys

config.name = "Ember"
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.suffixes = [".ir", ".py", ".mlir", ".ll", ".c", ".test"]
# `Inputs` holds files the tests read; the configuration and lit's format are not tests.
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "lit_ember.py"]

sys.path.insert(0, os.path.join(config.test_source_root, "harness"))
import lit_ember  # noqa: E402

config.test_format = lit_ember.EmberShTest()
config.pipefail = True


def ember_tools_dir():
    explicit = lit_config.params.get("tools_dir") or os.environ.get("EMBER_TOOLS_DIR")
    if explicit:
        return os.path.abspath(explicit)
    repo = os.path.dirname(config.test_source_root)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(repo, "target")
    return os.path.join(os.path.abspath(target), "debug")


config.ember_tools_dir = ember_tools_dir()
config.llvm_tools_dir = "/usr/lib/llvm-22/bin"
if not os.path.isdir(config.ember_tools_dir):
    lit_config.warning(f"no Ember tools in {config.ember_tools_dir}: run `cargo build --bins`")
config.environment["PATH"] = os.pathsep.join(
    [config.ember_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)

# ember-lit gives each test file 120 s; lit can enforce a limit only with psutil installed.
try:
    import psutil  # noqa: F401

    if lit_config.maxIndividualTestTime == 0:
        lit_config.maxIndividualTestTime = 120
except ImportError:
    pass
