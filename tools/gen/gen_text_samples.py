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


@torch.jit.script
class Pair:
    def __init__(self, a: int, b: torch.Tensor):
        self.a = a
        self.b = b

    def scaled(self) -> torch.Tensor:
        return self.b * self.a


@torch.jit.interface
class Scaler(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Twice(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


class UsesInterface(torch.nn.Module):
    s: Scaler

    def __init__(self):
        super().__init__()
        self.s = Twice()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.s.forward(x)


@torch.jit.script
def classes(x: torch.Tensor) -> torch.Tensor:
    p = Pair(3, x)
    return p.scaled()


@torch.jit.script
def annotated(xs: List[Tuple[int, str]], d: Dict[str, Optional[torch.Tensor]]) -> Tuple[List[Tuple[int, str]], int]:
    out = torch.jit.annotate(List[Tuple[int, str]], [])
    for k, v in xs:
        if k in [1, 2, 3] and v != "skip" and d.get(v) is not None:
            out.append((k * 2, v.lower()))
    return out, len(d.keys())


@torch.jit.script
def awaits(x: torch.Tensor) -> torch.Tensor:
    aw = torch.jit._awaitable(torch.neg, x)
    return torch.jit._awaitable_wait(aw) * 2


@torch.jit.script
def devices_and_dtypes(x: torch.Tensor) -> Tuple[torch.device, int, bool]:
    y = x.to(torch.device("cpu"), torch.float64)
    return y.device, y.dtype, y.is_contiguous(memory_format=torch.channels_last)


for fn in [classes, annotated, awaits, devices_and_dtypes]:
    save("script_" + fn.name, fn.graph)
save("script_module_interface", torch.jit.script(UsesInterface()).graph)


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


# ----- more forms: named tuple defaults, odd strings, Python ops, profiles, nested groups -----

class WithDefaults(NamedTuple):
    a: int
    b: float = 2.5
    c: str = "x"


@torch.jit.script
def named_defaults(p: WithDefaults) -> WithDefaults:
    return WithDefaults(p.a + 1)


@torch.jit.script
def odd_strings(s: str) -> str:
    return s + "caf\u00e9 \u2603 \x00\x1b\x7f \\ \r\v\f\a\b"


save("script_named_defaults", named_defaults.graph)
save("script_odd_strings", odd_strings.graph)


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k: float):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


def python_op(x):
    return Double.apply(x, 2.0) + 1


save("trace_python_op", torch.jit.trace(python_op, torch.randn(3)).graph)


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
# A profiled graph as the first run leaves it (prim::profile nodes).
@torch.jit.script
def profiled_once(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if bool(x.sum() > 0):
        return x * y + 1
    return x - y


profiled_once(x, y)
save("profiled_first_run", torch.jit.last_executed_optimized_graph())


# Autodiff with fusible ops: tensor-expression groups inside a differentiable graph.
@torch.jit.script
def grad_fusible(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    a = torch.sigmoid(x * y + 1.0)
    b = torch.tanh(a * x)
    return (a + b) * y


run_and_save("profiled_autodiff_fusible", grad_fusible, xg, yg, runs=4)


@torch.jit.script
def grad_loop(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = torch.tanh(x * 0.5) + torch.sigmoid(x)
    return x


run_and_save("profiled_autodiff_loop", grad_loop, xg, 2, runs=4)


profiled_seq = torch.jit.script(Seq())
run_and_save("profiled_module", profiled_seq, torch.randn(2, 3))
torch._C._jit_set_profiling_mode(True)
with torch.no_grad():
    run_and_save("profiled_block_nograd", torch.jit.script(Block().eval()), torch.randn(1, 3, 8, 8))

# Subgraph nodes built with PyTorch's own graph API: a FallbackGraph inside a block and a group
# whose subgraph has groups of its own, printed with PyTorch's nested `with` numbering.
def nested_subgraphs():
    g = torch._C.parse_ir("""graph(%x : Tensor, %y : Tensor, %c : bool):
  %r : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::mul(%x, %y)
      -> (%a)
    block1():
      -> (%x)
  return (%r)""")
    xs = list(g.inputs())
    if_node = next(n for n in g.nodes() if n.kind() == "prim::If")
    else_block = list(if_node.blocks())[1]
    fallback = g.create("prim::FallbackGraph", [xs[0], xs[1]], 1)
    fallback.g_("Subgraph", fusible.graph.copy())
    fallback.insertBefore(else_block.returnNode())
    else_block.returnNode().replaceInputWith(xs[0], fallback.output())
    group = g.create("prim::TensorExprGroup", [xs[0], xs[1], xs[2]], 1)
    group.g_("Subgraph", g.copy())
    group.is_("symbolic_shape_inputs", [-2, -3])
    group.insertBefore(if_node)
    diff = g.create("prim::DifferentiableGraph", [xs[0], xs[1], xs[2]], 1)
    diff.g_("Subgraph", g.copy())
    diff.i_("f_real_outputs", 1)
    diff.insertBefore(if_node)
    return g


save("built_nested_subgraphs", nested_subgraphs())


# ----- the C++ tensor printer, for tensors small enough to print in a graph -----

def tensor_print_cases():
    torch.manual_seed(1)
    cases = [torch.tensor([1, 2, 3]), torch.tensor([[1.5, 2.0], [0.25, -1.0]]), torch.tensor([0.5, 1e-8, 1e8]),
             torch.tensor([1e-3, 2e-3, 5e-3]), torch.tensor([12345678.0, 2.0]), torch.tensor([-1.5, 2.25, 3.0]),
             torch.tensor([1e12, 3.0]), torch.tensor([[1e-5, 1.0], [2.0, 3.0]]), torch.tensor([float("inf"), 1.5]),
             torch.tensor([float("nan"), -2.0, 1.0]), torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
             torch.arange(8.0).reshape(2, 2, 2) / 3, torch.arange(8).reshape(2, 1, 2, 2), torch.tensor([True, False]),
             torch.tensor([100, -200], dtype=torch.int16), torch.tensor([0.1, 0.2], dtype=torch.float64),
             torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]]) * 1e10, torch.randn(2, 3),
             torch.randn(10) * 1000, torch.tensor([0.0, 0.0]), torch.tensor([-0.001, 0.002]),
             torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([1.5, -2.5], dtype=torch.bfloat16)]
    lines = []
    for t in cases:
        g = torch._C.Graph()
        c = g.insertConstant(t)
        g.registerOutput(c)
        text = str(g)
        printed = text[text.index("[value=") + 7:text.rindex("]()")]
        values = " ".join(repr(float(v)) for v in t.reshape(-1).tolist())
        dtype = str(t.dtype).replace("torch.", "")
        sizes = ",".join(str(d) for d in t.shape)
        lines.append(f"{dtype}|{sizes}|{values}|{printed}")
    return "\n".join(lines) + "\n"


with open(os.path.join(OUT, "..", "tensor_prints.txt"), "w") as f:
    f.write(tensor_print_cases())

for name, text in sorted(SAMPLES.items()):
    with open(os.path.join(OUT, name + ".ir"), "w") as f:
        f.write(text)
print(f"wrote {len(SAMPLES)} graphs to {OUT}")
