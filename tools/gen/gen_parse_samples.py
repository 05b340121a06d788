"""Writes test/frontend/parse/code/: the code/ files of real TorchScript archives.

Each module below is scripted with real PyTorch and saved; the TorchScript source that
`torch.jit.save` puts in the archive's code/ folder (python_print's output) is copied out, one
file per archive entry (one of the mangled copies of a class). The parser tests read every file (it must parse), and the deterministic
robustness test and the fuzz target use them as seeds.

Run: ~/.cache/torch-venv/bin/python tools/gen/gen_parse_samples.py
"""

import io
import re
import os
import zipfile
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "test", "frontend", "parse", "code")


class ControlFlow(nn.Module):
    """Loops, branches, early returns, Optional refinement, containers, strings."""

    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.names: List[str] = ["a", "b"]
        self.lin = nn.Linear(4, 3)

    def helper(self, x: torch.Tensor, n: int) -> torch.Tensor:
        for i in range(n):
            if i % 2 == 0:
                x = x + i
            elif i == 3:
                break
            else:
                continue
        return x

    def forward(self, x: torch.Tensor, y: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, Dict[str, int]]:
        d: Dict[str, int] = {}
        for k, name in enumerate(self.names):
            d[name] = k
        if y is not None:
            x = x * y
        i = 0
        while i < 3 and bool(x.sum() > -100.0):
            x = F.relu(x) - 1
            i += 1
        xs = [t * self.scale for t in x.unbind(0)]
        s = f"{i} items"
        assert len(s) > 0, "empty"
        if x.dim() == 0:
            raise RuntimeError("scalar input")
        return self.lin(self.helper(torch.stack(xs), 4)), d


def save_code(name: str, module: torch.jit.ScriptModule) -> None:
    buf = io.BytesIO()
    torch.jit.save(module, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        for entry in z.namelist():
            if "/code/" in entry and entry.endswith(".py"):
                rel = entry.split("/code/", 1)[1].replace("/", ".")
                # Mangled copies of one class (`___torch_mangle_N`) differ in little: keep one.
                rel = re.sub(r"\.___torch_mangle_\d+", "", rel)
                path = os.path.join(OUT, f"{name}.{rel}")
                if os.path.exists(path):
                    continue
                with open(path, "wb") as f:
                    f.write(z.read(entry))


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    torch.manual_seed(0)
    save_code("control_flow", torch.jit.script(ControlFlow()))
    save_code("resnet18", torch.jit.script(torchvision.models.resnet18()))
    save_code("mobilenet_v3_small", torch.jit.script(torchvision.models.mobilenet_v3_small()))
    save_code("lstm", torch.jit.script(nn.LSTM(4, 8, num_layers=2)))
    save_code("transformer_layer", torch.jit.script(nn.TransformerEncoderLayer(16, 2)))


if __name__ == "__main__":
    main()
