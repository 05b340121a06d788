"""nn.Module cases shared by nn_script.py (scripted) and nn_trace.py (traced).

MODULES lists (name, constructor, example inputs); each constructor is called after the seed
is reset, so weights are the same on every run.
"""

from typing import Dict, Final, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class ConvBnRelu(nn.Module):
    def __init__(self, cin: int = 3, cout: int = 8):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        return self.relu(self.bn(self.conv(x)))


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(ConvBnRelu(3, 8), nn.MaxPool2d(2), ConvBnRelu(8, 16),
                                      nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, 10)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 4),
                                 nn.LayerNorm(4))

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x)


class LstmTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.out = nn.Linear(16, 5)

    def forward(self, tokens: Tensor) -> Tensor:
        h, _ = self.lstm(self.emb(tokens))
        return F.log_softmax(self.out(h), dim=-1)


class GruEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 12, bidirectional=True)

    def forward(self, x: Tensor, h0: Tensor) -> Tuple[Tensor, Tensor]:
        return self.gru(x, h0)


class RnnCellLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 8)

    def forward(self, xs: Tensor) -> Tensor:
        h = torch.zeros(xs.size(1), 8)
        c = torch.zeros(xs.size(1), 8)
        for i in range(xs.size(0)):
            h, c = self.cell(xs[i], (h, c))
        return h


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        out, _ = self.mha(q, k, v, need_weights=False)
        return out


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0,
                                                batch_first=True)

    def forward(self, x: Tensor) -> Tensor:
        return self.layer(x)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(16, 4, dim_feedforward=32, dropout=0.0,
                                                batch_first=True, norm_first=True)

    def forward(self, x: Tensor, mem: Tensor) -> Tensor:
        return self.layer(x, mem)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        self.acts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})

    def forward(self, x: Tensor) -> Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i % 2 == 0:
                x = self.acts["relu"](x)
            else:
                x = self.acts["tanh"](x)
        return x


class ModuleDictLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 3)})

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        out: Dict[str, Tensor] = {}
        for name, head in self.heads.items():
            out[name] = head(x)
        return out


class WithBuffersAndConstants(nn.Module):
    scale: Final[float]
    kinds: Final[List[str]]
    __constants__ = ["eps"]

    def __init__(self):
        super().__init__()
        self.scale = 0.5
        self.eps = 1e-6
        self.kinds = ["x", "y"]
        self.register_buffer("running", torch.zeros(4))
        self.register_buffer("steps", torch.tensor(0, dtype=torch.long))
        self.weight = nn.Parameter(torch.randn(4))
        self.count: int = 0
        self.name: str = "buffers"
        self.table: Dict[str, int] = {"a": 1}
        self.maybe: Optional[Tensor] = None

    def forward(self, x: Tensor) -> Tensor:
        self.running.mul_(0.9).add_(x.mean(0) * 0.1)
        self.steps += 1
        self.count += 1
        y = (x - self.running) / (self.running.abs() + self.eps) * self.weight * self.scale
        if self.maybe is not None:
            y = y + self.maybe
        for k in self.kinds:
            y = y + len(k)
        return y + self.table["a"]


class WithMethods(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    @torch.jit.export
    def encode(self, x: Tensor) -> Tensor:
        return torch.tanh(self.lin(x))

    @torch.jit.export
    def decode(self, x: Tensor, steps: int) -> Tensor:
        for _ in range(steps):
            x = self.lin(x) + x
        return x

    def forward(self, x: Tensor) -> Tensor:
        return self.decode(self.encode(x), 2)


class Residual(nn.Module):
    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x: Tensor) -> Tensor:
        return x + self.inner(x)


class NestedResidual(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(Residual(nn.Linear(8, 8)), Residual(nn.Sequential(nn.ReLU(),
                                   nn.Linear(8, 8))))

    def forward(self, x: Tensor) -> Tensor:
        return self.block(x)


class TrainingBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x: Tensor) -> Tensor:
        if self.training:
            x = x * 2
        return self.drop(self.bn(x))


class MiscLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(4, 6, 3, padding=1)
        self.gn = nn.GroupNorm(2, 6)
        self.tconv = nn.ConvTranspose1d(6, 4, 2, stride=2)
        self.pool = nn.AvgPool1d(2)
        self.prelu = nn.PReLU()

    def forward(self, x: Tensor) -> Tensor:
        return self.pool(self.tconv(self.prelu(self.gn(self.conv1d(x)))))


class DepthwiseSeparable(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 16, 1)
        self.act = nn.Hardswish()
        self.up = nn.Upsample(scale_factor=2.0, mode="bilinear", align_corners=False)

    def forward(self, x: Tensor) -> Tensor:
        return self.up(self.act(self.pw(self.dw(x))))


class ReturnsStructures(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)

    def forward(self, x: Tensor) -> Tuple[List[Tensor], Dict[str, Tensor]]:
        y = self.a(x)
        return [y, y * 2], {"sum": y.sum(), "mean": y.mean()}


class EmbeddingBagModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(30, 8, mode="mean")
        self.fc = nn.Linear(8, 2)

    def forward(self, idx: Tensor, offsets: Tensor) -> Tensor:
        return self.fc(self.bag(idx, offsets))


class Pixel(nn.Module):
    def __init__(self):
        super().__init__()
        self.shuffle = nn.PixelShuffle(2)
        self.flat = nn.Flatten()
        self.unflat = nn.Unflatten(1, (2, 8))

    def forward(self, x: Tensor) -> Tensor:
        return self.unflat(self.flat(self.shuffle(x))[:, :16])


def _img(n=1, c=3, h=16, w=16):
    return lambda: (torch.randn(n, c, h, w),)


# (name, constructor, example inputs for tracing; None when the module cannot be traced)
MODULES = [
    ("linear", lambda: nn.Linear(4, 3), lambda: (torch.randn(2, 4),)),
    ("conv_bn_relu", ConvBnRelu, _img()),
    ("small_cnn", SmallCnn, _img(2)),
    ("mlp_sequential", Mlp, lambda: (torch.randn(3, 8),)),
    ("lstm", lambda: nn.LSTM(4, 8), lambda: (torch.randn(5, 2, 4),)),
    ("lstm_tagger", LstmTagger, lambda: (torch.randint(0, 20, (2, 7)),)),
    ("gru_bidirectional", GruEncoder, lambda: (torch.randn(5, 2, 6), torch.zeros(2, 2, 12))),
    ("lstm_cell_loop", RnnCellLoop, lambda: (torch.randn(4, 2, 4),)),
    ("multihead_attention", Attention,
     lambda: (torch.randn(2, 5, 16), torch.randn(2, 6, 16), torch.randn(2, 6, 16))),
    ("transformer_encoder_layer", Encoder, lambda: (torch.randn(2, 5, 16),)),
    ("transformer_decoder_layer", Decoder, lambda: (torch.randn(2, 5, 16), torch.randn(2, 3, 16))),
    ("module_list_dict", Stack, lambda: (torch.randn(2, 8),)),
    ("module_dict_items", ModuleDictLoop, lambda: (torch.randn(2, 4),)),
    ("buffers_constants_final", WithBuffersAndConstants, lambda: (torch.randn(3, 4),)),
    ("exported_methods", WithMethods, lambda: (torch.randn(2, 4),)),
    ("nested_residual", NestedResidual, lambda: (torch.randn(2, 8),)),
    ("training_branch", TrainingBranch, lambda: (torch.randn(3, 4),)),
    ("misc_layers_1d", MiscLayers, lambda: (torch.randn(2, 4, 8),)),
    ("depthwise_separable", DepthwiseSeparable, lambda: (torch.randn(1, 8, 8, 8),)),
    ("returns_structures", ReturnsStructures, lambda: (torch.randn(2, 3),)),
    ("embedding_bag", EmbeddingBagModel,
     lambda: (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]))),
    ("pixel_shuffle_flatten", Pixel, lambda: (torch.randn(1, 8, 4, 4),)),
]
