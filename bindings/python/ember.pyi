"""Ember: TorchScript archives, source and graphs loaded, run, optimized and saved without
libtorch. Arrays are NumPy arrays (or torch tensors, when the inputs are); memory is shared
without copies where dtype and layout allow."""

import os
from typing import Any, List, Tuple, Union

__version__: str

class Error(Exception):
    """Every error Ember raises."""

class LoadError(Error):
    """A model that cannot be read or loaded."""

class CompileError(Error):
    """Source, graphs or passes that fail to compile."""

class RunError(Error):
    """An error raised while a method runs; the message carries the TorchScript traceback."""

class Module:
    """A loaded module: call it (forward), call its methods, read its attributes."""

    graph: str
    """`forward`'s graph, as PyTorch prints `module.graph`."""
    code: str
    """`forward` as TorchScript code."""

    def __call__(self, *args: Any) -> Any: ...
    def __getattr__(self, name: str) -> Any: ...
    def named_parameters(self) -> List[Tuple[str, Any]]: ...
    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the module as an archive `torch.jit.load` reads."""

class Method:
    graph: str
    def __call__(self, *args: Any) -> Any: ...

class Function:
    graph: str
    code: str
    def __call__(self, *args: Any) -> Any: ...

class Unit:
    """The functions of TorchScript source, as attributes."""

    def __getattr__(self, name: str) -> Function: ...
    def functions(self) -> List[str]: ...

def load(source: Union[str, os.PathLike, bytes]) -> Module:
    """Loads a TorchScript archive (.pt) from a path or bytes."""

def compile_source(source: str) -> Unit:
    """Compiles TorchScript source (no Python interpreter involved)."""

def script_file(path: Union[str, os.PathLike]) -> Unit:
    """Compiles the TorchScript source file at `path`."""

def load_graph(text: str) -> Function:
    """A graph in PyTorch's printed format."""

def optimize(module: Module, freeze: bool = True) -> Module:
    """An optimized copy: frozen for inference (as torch.jit.freeze) or passed through the
    optimization passes."""
