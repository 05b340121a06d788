"""nn.Modules traced: graphs with `, scope:` annotations and fully refined tensor types."""

from . import nn_defs
from .registry import traced_module

C = "nn_trace"

for _name, _make, _inputs in nn_defs.MODULES:
    if _inputs is not None:
        traced_module(C, _name, _make, _inputs)
