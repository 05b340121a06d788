"""Generates real PyTorch graph dumps (`str(graph)`) for the text-format tests of ember-dialects.

Run with a Python that has torch installed:
    python tools/gen/gen_text_samples.py [OUT_DIR]
OUT_DIR defaults to dialects/tests/data/graphs. Every file is one graph exactly as PyTorch 2.x
prints it; the Rust tests parse each one and print it back byte for byte.
"""

import enum
import os
import sys
import warnings
from collections import namedtuple
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "dialects", "tests", "data", "graphs")
os.makedirs(OUT, exist_ok=True)
SAMPLES = {}


def save(name, graph):
    SAMPLES[name] = str(graph)


# ----- scripted functions -----

@torch.jit.script
def control_flow(x: torch.Tensor, n: int) -> torch.Tensor:
    y = x * 2.5 + 0.1
    for i in range(n):
        if i > 3:
            y = y - 1
        elif i == 2:
            y = y.relu()
        else:
            y = torch.tanh(y)
    while n > 0:
        n -= 1
        y = y * 0.5
    return y


@torch.jit.script
def lists_and_dicts(xs: List[torch.Tensor], d: Dict[str, int], k: str) -> Tuple[List[int], Dict[str, List[float]]]:
    out: List[int] = []
    for x in xs:
        out.append(x.dim())
    out.append(d[k])
    e: Dict[str, List[float]] = {}
    e["a"] = [1.0, 2.0, -3.5]
    e[k] = [float(len(out))]
    return sorted(out), e


@torch.jit.script
def strings(s: str, n: int) -> str:
    t = s + " world\n\t\"'\\" + "x\x01\x7f"
    if s.startswith("h"):
        t = t.upper()
    return t + str(n) + f"{n}: {s}"


@torch.jit.script
def optionals(x: Optional[torch.Tensor], y: Optional[int] = None, z: float = 1e-5) -> torch.Tensor:
    if x is None:
        x = torch.zeros(3)
    if y is not None:
        x = x + y
    return x * z


@torch.jit.script
def exceptions(x: int) -> int:
    if x < 0:
        raise ValueError("negative: " + str(x))
    assert x != 3, "not three"
    return x + 1


@torch.jit.script
def tensor_ops(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.matmul(x, w).sum(dim=[0], keepdim=True)
    z = F.softmax(y, dim=-1, dtype=torch.float64)
    v = x.view(-1).to(torch.float16).to(device=x.device, memory_format=torch.contiguous_format)
    return z.float() + v.float().mean() + torch.tensor([1, 2, 3]).sum() + torch.full([2], -1.5)


@torch.jit.script
def tuples(a: Tuple[int, Tuple[str, float]], b: Tuple[torch.Tensor, torch.Tensor]) -> Tuple[int, str, float, torch.Tensor]:
    x, (s, f) = a
    return x, s, f, b[1]


class Point(NamedTuple):
    x: float
    y: float


@torch.jit.script
def named_tuples(p: Point) -> Point:
    return Point(p.y, p.x + 1.0)


class Color(enum.Enum):
    RED = 1
    GREEN = 2


@torch.jit.script
def enums(c: Color) -> int:
    if c == Color.RED:
        return c.value
    return Color.GREEN.value


@torch.jit.script
def unions(x: Union[int, str, None], y: Any) -> str:
    if isinstance(x, int):
        return str(x + 1)
    elif isinstance(x, str):
        return x
    return "none"


@torch.jit.script
def scalars(d: torch.device, dt: int, g: Optional[torch.Generator], c: complex) -> torch.Tensor:
    t = torch.empty([2, 2], dtype=dt, layout=torch.strided, device=d, memory_format=torch.channels_last)
    z = c * 2j + 1
    return t.normal_(generator=g) + torch.tensor(z).abs()


@torch.jit.script
def futures(x: torch.Tensor) -> torch.Tensor:
    fut = torch.jit.fork(torch.neg, x)
    return torch.jit.wait(fut) + 1


@torch.jit.script
def with_no_grad(x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        y = x * 2
    return y


@torch.jit.script
def comprehensions(xs: List[int]) -> Dict[int, bool]:
    ys = [x * x for x in xs]
    return {y: y % 2 == 0 for y in ys}


@torch.jit.script
def breaks_and_continues(xs: List[int]) -> int:
    total = 0
    for x in xs:
        if x < 0:
            continue
        if x > 100:
            break
        total += x
    return total


@torch.jit.script
def numbers(a: int, b: float) -> float:
    return float(a) / b + a // 3 + b ** 2 + (a % 7) - abs(-b) + 3.0e100 + 1.5e-300 + float("nan")


@torch.jit.script
def helper(x: torch.Tensor) -> torch.Tensor:
    return x + 1


@torch.jit.script
def calls(x: torch.Tensor) -> torch.Tensor:
    return helper(x) * helper(x)


for fn in [control_flow, lists_and_dicts, strings, optionals, exceptions, tensor_ops, tuples,
           named_tuples, enums, unions, scalars, futures, with_no_grad, comprehensions,
           breaks_and_continues, numbers, calls]:
    save("script_" + fn.name, fn.graph)


# ----- scripted and traced modules -----

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))

    def forward(self, x):
        return self.seq(x).softmax(-1)


class Counter(nn.Module):
    count: int

    def __init__(self):
        super().__init__()
        self.count = 0
        self.names = ["a", "b"]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.count += 1
        return x + self.count + len(self.names)


torch.manual_seed(0)
block = Block().eval()
traced_block = torch.jit.trace(block, torch.randn(1, 3, 8, 8))
save("trace_block", traced_block.graph)
save("trace_block_inlined", traced_block.inlined_graph)
traced_seq = torch.jit.trace(Seq(), torch.randn(2, 3))
save("trace_seq_inlined", traced_seq.inlined_graph)
scripted_block = torch.jit.script(block)
save("script_module_block", scripted_block.graph)
save("script_module_block_inlined", scripted_block.inlined_graph)
save("script_module_counter", torch.jit.script(Counter()).graph)
frozen = torch.jit.freeze(torch.jit.script(Block().eval()))
save("frozen_block", frozen.graph)


def traced_fn(x, y):
    z = x * y + torch.ones(3)
    return z.clamp(min=0.0, max=6.0), (z.sum(), z.shape[0])


save("trace_fn", torch.jit.trace(traced_fn, (torch.randn(3), torch.randn(3))).graph)


# ----- graphs from the IR parser: every attribute kind and tensor constants -----

IR_SOURCES = {
    "ir_attrs": """
graph(%x : Tensor):
  %a : Tensor = foo::bar[i=1, f=2.5, s="hi", ints=[1, 2, 3], fs=[1.5, 2.], ss=["a", "b"]](%x)
  %b : int = prim::Constant[value=-7]()
  %c : Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()
  %d : int[] = prim::Constant[value=[1, 2, 3]]()
  return (%a, %b, %c, %d)
""",
    "ir_types": """
graph(%a : Layout, %b : MemoryFormat, %c : ScalarType, %d : Storage, %e : Generator,
      %f : Any, %g : Future(int), %h : RRef(Tensor), %i : Await(Tensor), %j : Union(int, str),
      %k : Scalar, %l : Device, %m : Stream, %n : (int, (str, Tensor?)), %o : Dict(int, Tensor[]),
      %p : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu), %q : Long(*, *),
      %r : Double(requires_grad=1, device=cuda:0), %s : Tensor, %t : complex,
      %u : bool[][], %v : QScheme, %w : int?[], %x : Capsule, %y : Half(2, *, 3), %z : Bool()):
  return (%a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l, %m, %n, %o, %p, %q, %r, %s, %t, %u, %v, %w, %x, %y, %z)
""",
}

for name, src in IR_SOURCES.items():
    save(name, torch._C.parse_ir(src, parse_tensor_constants=True))


def with_constants():
    g = torch._C.Graph()
    x = g.addInput()
    x.setDebugName("x")
    vals = [torch.tensor(3), torch.tensor(2.5), torch.tensor([1, 2, 3]), torch.tensor([[1.5, 2.0], [0.25, -1.0]]),
            torch.arange(20.0), torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int8),
            torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([0.5, 1e-8, 1e8]),
            torch.tensor(1 + 2j), torch.tensor([1.0, 2.0], dtype=torch.float16), torch.zeros(2, 0),
            torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]), 1e-5, 2, "s\n", [1, 2], [1.0, 2.5],
            (1, "a"), [True, False], None, torch.device("cpu"), [torch.ones(2)], 1.0 + 2.0j, True]
    for v in vals:
        c = g.insertConstant(v)
    g.registerOutput(c)
    return g


save("constants", with_constants())


# ----- the profiling executor: profiles, type checks, fusion groups, autodiff -----

torch._C._jit_set_profiling_executor(True)
torch._C._jit_set_profiling_mode(True)
torch._C._jit_override_can_fuse_on_cpu(True)
torch._C._jit_set_texpr_fuser_enabled(True)
torch._C._get_graph_executor_optimize(True)
torch._C._jit_set_te_must_use_llvm_cpu(False)


def run_and_save(name, fn, *args, runs=3):
    for _ in range(runs):
        fn(*args)
    save(name, torch.jit.last_executed_optimized_graph())


@torch.jit.script
def fusible(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    a = x * y + 1
    b = torch.sigmoid(a) * torch.tanh(x)
    return b.relu() - y


@torch.jit.script
def fusible_loop(x: torch.Tensor, n: int) -> torch.Tensor:
    for _ in range(n):
        x = torch.tanh(x * 0.5 + 1.0)
    return x


@torch.jit.script
def mixed(x: torch.Tensor, flag: bool) -> torch.Tensor:
    y = x.exp() * 2
    if flag:
        y = y.log() + x
    return torch.cat([y, y.sin() * y.cos()], 0)


x = torch.randn(4, 4)
y = torch.randn(4, 4)
run_and_save("profiled_fusible", fusible, x, y)
run_and_save("profiled_fusible_loop", fusible_loop, x, 3)
run_and_save("profiled_mixed", mixed, x, True)
xg = torch.randn(4, 4, requires_grad=True)
yg = torch.randn(4, 4, requires_grad=True)


@torch.jit.script
def grad_fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    a = x * y + x.sigmoid()
    return (a * a).tanh()


run_and_save("profiled_autodiff", grad_fn, xg, yg)


@torch.jit.script
def grad_mm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.relu(torch.mm(x, w) * 2.0 + 1.0)


run_and_save("profiled_autodiff_mm", grad_mm, xg, yg)
profiled_seq = torch.jit.script(Seq())
run_and_save("profiled_module", profiled_seq, torch.randn(2, 3))
torch._C._jit_set_profiling_mode(True)
with torch.no_grad():
    run_and_save("profiled_block_nograd", torch.jit.script(Block().eval()), torch.randn(1, 3, 8, 8))

for name, text in sorted(SAMPLES.items()):
    with open(os.path.join(OUT, name + ".ir"), "w") as f:
        f.write(text)
print(f"wrote {len(SAMPLES)} graphs to {OUT}")
