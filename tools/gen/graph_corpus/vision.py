"""torchvision models with random weights (weights=None, nothing downloaded), scripted and
traced: forward graphs and inlined graphs."""

import torch
import torchvision.models as tvm

from .registry import register

C = "vision"

# (name, constructor, input size); small inputs keep tracing quick, the graphs do not depend on
# the size except for the refined types of traced graphs.
MODELS = [
    ("resnet18", lambda: tvm.resnet18(weights=None), 64),
    ("mobilenet_v3_small", lambda: tvm.mobilenet_v3_small(weights=None), 64),
    ("squeezenet1_1", lambda: tvm.squeezenet1_1(weights=None), 64),
    ("mobilenet_v2", lambda: tvm.mobilenet_v2(weights=None), 64),
    ("shufflenet_v2_x0_5", lambda: tvm.shufflenet_v2_x0_5(weights=None), 64),
    ("alexnet", lambda: tvm.alexnet(weights=None), 64),
    ("vgg11", lambda: tvm.vgg11(weights=None), 32),
    ("densenet121", lambda: tvm.densenet121(weights=None), 64),
    ("googlenet", lambda: tvm.googlenet(weights=None, aux_logits=False, init_weights=False), 64),
    ("mnasnet0_5", lambda: tvm.mnasnet0_5(weights=None), 64),
    ("efficientnet_b0", lambda: tvm.efficientnet_b0(weights=None), 64),
    ("regnet_y_400mf", lambda: tvm.regnet_y_400mf(weights=None), 64),
    # A two-layer VisionTransformer keeps the graph small; the ops are those of vit_b_16.
    ("vit_tiny", lambda: tvm.VisionTransformer(image_size=32, patch_size=16, num_layers=2,
                                               num_heads=2, hidden_dim=32, mlp_dim=64), 32),
]


def _scripted(make):
    def produce():
        m = torch.jit.script(make().eval())
        return [("", m.graph), (".inlined", m.inlined_graph)]

    return produce


def _traced(make, size):
    def produce():
        x = torch.randn(1, 3, size, size)
        with torch.no_grad():
            m = torch.jit.trace(make().eval(), (x,), check_trace=False)
        return [("", m.graph), (".inlined", m.inlined_graph)]

    return produce


for _name, _make, _size in MODELS:
    register(C, _name + ".scripted", _scripted(_make))
    register(C, _name + ".traced", _traced(_make, _size))
