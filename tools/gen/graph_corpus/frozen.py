"""Frozen modules: torch.jit.freeze inlines attributes as constants (tensor constants print as
`prim::Constant[value=<Tensor>]`); optimize_for_inference folds conv+bn and more."""

import torch

from . import nn_defs
from .registry import register

C = "frozen"

FROZEN = ["linear", "conv_bn_relu", "small_cnn", "mlp_sequential", "lstm_tagger",
          "multihead_attention", "transformer_encoder_layer", "module_list_dict",
          "buffers_constants_final", "nested_residual", "depthwise_separable", "misc_layers_1d"]


def _frozen(make, optimize):
    def produce():
        m = torch.jit.script(make().eval())
        if optimize:
            return [("", torch.jit.optimize_for_inference(m).graph)]
        return [("", torch.jit.freeze(m).graph)]

    return produce


for _name, _make, _inputs in nn_defs.MODULES:
    if _name in FROZEN:
        register(C, _name, _frozen(_make, False))
        register(C, _name + ".optimized", _frozen(_make, True))
