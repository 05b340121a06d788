"""nn.Modules scripted: forward graphs (prim::GetAttr / prim::CallMethod) and inlined graphs."""

from typing import List

import torch
import torch.nn as nn
from torch import Tensor

from . import nn_defs
from .registry import register, scripted_module

C = "nn_script"

for _name, _make, _inputs in nn_defs.MODULES:
    _methods = {
        "exported_methods": ("forward", "encode", "decode"),
        # nn.LSTM's forward is overloaded: one method per overload, no `forward`.
        "lstm": ("forward__0", "forward__1"),
    }.get(_name, ("forward",))
    scripted_module(C, _name, _make, methods=_methods)


@torch.jit.script
class Accumulator:
    def __init__(self, start: float):
        self.total = start
        self.items: List[float] = []

    def add(self, x: float) -> None:
        self.total += x
        self.items.append(x)

    def mean(self) -> float:
        return self.total / max(len(self.items), 1)


def _use_class(xs: List[float]) -> float:
    acc = Accumulator(0.0)
    for x in xs:
        acc.add(x)
    return acc.mean()


def _class_graphs():
    f = torch.jit.script(_use_class)
    return [("", f.graph), (".inlined", f.inlined_graph)]


register(C, "custom_class_use", _class_graphs)


@torch.jit.interface
class ScaleInterface(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        pass


class Doubler(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x * 2


class UsesInterface(nn.Module):
    impl: ScaleInterface

    def __init__(self):
        super().__init__()
        self.impl = Doubler()

    def forward(self, x: Tensor) -> Tensor:
        return self.impl.forward(x) + 1


scripted_module(C, "module_interface", UsesInterface)


class Recurse(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(2, 2), nn.ReLU())

    def forward(self, x: Tensor) -> Tensor:
        y = x
        for _ in range(3):
            y = self.inner(y)
        return y


scripted_module(C, "submodule_in_loop", Recurse)


def _dynamic_quantized(make):
    # Dynamic quantization swaps Linear/LSTM for quantized modules whose weights live in
    # TorchScript custom classes (`__torch__.torch.classes.quantized.LinearPackedParamsBase`).
    def build():
        return torch.ao.quantization.quantize_dynamic(make().eval(), {nn.Linear, nn.LSTM},
                                                      dtype=torch.qint8)

    return build


scripted_module(C, "quantized_dynamic_mlp", _dynamic_quantized(nn_defs.Mlp))
scripted_module(C, "quantized_dynamic_lstm_tagger", _dynamic_quantized(nn_defs.LstmTagger))
