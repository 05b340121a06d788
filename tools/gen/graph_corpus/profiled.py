"""Graphs after PyTorch's graph executors.

Each case runs a scripted function or module a few times and records what the executor built:
  <name>.profiling.ir  the profiled graph of the first run (prim::profile nodes, seen_none)
  <name>.optimized.ir  torch.jit.last_executed_optimized_graph() after the optimizing runs:
                       prim::TypeCheck / prim::RequiresGradCheck guards, prim::If with a
                       `fallback_function` prim::CallFunction, prim::TensorExprGroup or
                       prim::DifferentiableGraph with their `with prim::... = graph(...)` sections
  <name>.graph_for.ir  fn.graph_for(*inputs), the same plan printed through another entry point
Executor settings per case:
  te        profiling executor, TensorExpr fuser on CPU, static shapes (STATIC, 2)
  dynamic   the same with the DYNAMIC fusion strategy: prim::TensorExprDynamicGroup and guards
  grad      inputs with requires_grad: autodiff's prim::DifferentiableGraph
  legacy    the legacy (non-profiling) executor: `Float(*, ...)` shapes, DifferentiableGraph
  onednn    the oneDNN (LLGA) fuser: prim::oneDNNFusionGuard and prim::oneDNNFusionGroup
Profiling runs with one thread and one profiled run, so each plan is the same on every run.
"""

import contextlib
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import Tensor

from . import nn_defs
from .registry import register

C = "profiled"


@contextlib.contextmanager
def executor(mode):
    c = torch._C
    saved = (c._jit_can_fuse_on_cpu(), c._jit_texpr_fuser_enabled(),
             c._jit_get_te_must_use_llvm_cpu(), c._jit_set_profiling_executor(True),
             c._jit_set_profiling_mode(True), c._jit_set_num_profiled_runs(1),
             torch.jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)]),
             c._jit_llga_enabled())
    try:
        c._jit_override_can_fuse_on_cpu(mode != "onednn")
        c._jit_set_texpr_fuser_enabled(mode != "onednn")
        # This torch has no LLVM: TensorExpr compiles with its own IR evaluator instead.
        c._jit_set_te_must_use_llvm_cpu(False)
        c._jit_set_profiling_executor(mode != "legacy")
        c._jit_set_profiling_mode(mode != "legacy")
        c._jit_set_num_profiled_runs(1)
        if mode == "dynamic":
            torch.jit.set_fusion_strategy([("DYNAMIC", 10)])
        c._jit_set_llga_enabled(mode == "onednn")
        yield
    finally:
        c._jit_override_can_fuse_on_cpu(saved[0])
        c._jit_set_texpr_fuser_enabled(saved[1])
        c._jit_set_te_must_use_llvm_cpu(saved[2])
        c._jit_set_profiling_executor(saved[3])
        c._jit_set_profiling_mode(saved[4])
        c._jit_set_num_profiled_runs(saved[5])
        torch.jit.set_fusion_strategy(saved[6])
        c._jit_set_llga_enabled(saved[7])


def _requiring_grad(args):
    def conv(a):
        if isinstance(a, torch.Tensor) and a.is_floating_point():
            return a.detach().requires_grad_(True)
        if isinstance(a, list):
            return [conv(x) for x in a]
        return a

    return tuple(conv(a) for a in args)


def _run(target, flush, input_sets, mode, graph_for):
    """Run target on each input set (profile once, then optimize) and record the graphs.

    Graphs are printed at once: the executor may change them on later runs. flush() drops
    the executor state: functions and the methods of one module type share one executor.
    """
    out = []
    ctx = torch.no_grad() if mode in ("te", "dynamic", "onednn") else contextlib.nullcontext()
    with executor(mode), ctx:
        flush()  # inside: the executor kind and fusion strategy are fixed when it is created
        for i, make in enumerate(input_sets):
            tag = "" if i == 0 else f".shape{i}"
            args = make()
            if mode in ("grad", "legacy"):
                args = _requiring_grad(args)
            target(*args)
            if mode != "legacy" and i == 0:
                out.append((tag + ".profiling", str(torch.jit.last_executed_optimized_graph())))
            target(*args)
            target(*args)
            out.append((tag + ".optimized", str(torch.jit.last_executed_optimized_graph())))
        if graph_for:
            args = input_sets[0]()
            if mode in ("grad", "legacy"):
                args = _requiring_grad(args)
            out.append((".graph_for", str(target.graph_for(*args))))
    return out


def profile_fn(name, fn, inputs, modes=("te",), graph_for=False, shapes=()):
    for mode in modes:
        def produce(mode=mode):
            f = torch.jit.script(fn)
            return _run(f, f._debug_flush_compilation_cache, [inputs] + list(shapes), mode,
                        graph_for)

        register(C, f"{name}.{mode}", produce)


def profile_module(name, make, inputs, modes=("te", "grad"), graph_for=True):
    for mode in modes:
        def produce(mode=mode):
            m = torch.jit.script(make().eval())
            return _run(m, m.forward._debug_flush_compilation_cache, [inputs], mode, graph_for)

        register(C, f"{name}.{mode}", produce)


def r(*shape, grad=False, dtype=torch.float32):
    return lambda: torch.randn(*shape, dtype=dtype, requires_grad=grad)


def inputs(*makers):
    return lambda: tuple(m() for m in makers)


def elementwise_chain(a: Tensor, b: Tensor) -> Tensor:
    return ((a * b + a) / (b.abs() + 1.0)).relu().sigmoid() - 0.5


def if_and_loop(a: Tensor, b: Tensor) -> Tensor:
    c = a * b
    if bool(c.sum() > 0):
        c = c.relu()
    for _ in range(3):
        c = c * 2 + a
    return c.tanh()


def while_loop_tensor(x: Tensor, n: int) -> Tensor:
    i = 0
    while i < n:
        x = torch.sin(x) + x * 0.5
        i += 1
    return x


def reduce_then_elementwise(x: Tensor) -> Tensor:
    m = x.mean(-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(-1, keepdim=True)
    return (x - m) / torch.sqrt(v + 1e-5)


def mlp_gelu(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    return F.gelu(F.linear(x, w, b)) * 0.5 + x.sum(-1, keepdim=True)


def attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    s = torch.matmul(q, k.transpose(-1, -2)) * 0.25
    return torch.matmul(torch.softmax(s, -1), v)


def optional_bias(x: Tensor, bias: Optional[Tensor]) -> Tensor:
    y = x * 2.0
    if bias is not None:
        y = y + bias
    return y.relu()


def scalar_args(x: Tensor, n: int, f: float) -> Tensor:
    return (x * n + f).clamp(min=-1.0, max=1.0) * (n + 1)


def tensor_list(xs: List[Tensor]) -> Tensor:
    out = xs[0]
    for t in xs[1:]:
        out = out * t + 1.0
    return out.exp()


def where_compare(x: Tensor, y: Tensor) -> Tensor:
    return torch.where(x > y, x - y, (y - x) * 0.5).abs().pow(2.0)


def type_conversions(x: Tensor) -> Tensor:
    return (x.to(torch.float64) * 2).to(torch.float32) + x.to(torch.int32).to(torch.float32)


def broadcast(a: Tensor, b: Tensor) -> Tensor:
    return (a + b) * (a - b)


def unfusible(x: Tensor) -> Tensor:
    s, _ = torch.sort(x, -1)
    return torch.cumsum(s, -1) + x.topk(2, -1)[0].sum()


def mixed_fusible(x: Tensor, w: Tensor) -> Tensor:
    y = (x * 2 + 1).tanh()
    z = torch.mm(y, w)
    return (z * z - 1).sigmoid()


def cat_and_slice(a: Tensor, b: Tensor) -> Tensor:
    c = torch.cat([a * 2, b + 1], 1)
    return c[:, 1:].relu() + c[:, :-1]


def lstm_cell(x: Tensor, h: Tensor, c: Tensor, w_ih: Tensor, w_hh: Tensor, b: Tensor):
    gates = torch.mm(x, w_ih.t()) + torch.mm(h, w_hh.t()) + b
    i, f, g, o = gates.chunk(4, 1)
    c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h2 = torch.sigmoid(o) * torch.tanh(c2)
    return h2, c2


def in_place(x: Tensor) -> Tensor:
    y = x.clone()
    y.mul_(2).add_(1)
    return y.relu_()


def dropout_like(x: Tensor, training: bool) -> Tensor:
    return F.dropout(x * 2, 0.2, training) + 1


def int_math_in_graph(x: Tensor) -> Tensor:
    n = x.size(0) * 2 + x.dim()
    return x.view(-1) * n


ALL = ("te", "dynamic", "grad", "legacy")

profile_fn("elementwise_chain", elementwise_chain, inputs(r(4, 8), r(4, 8)),
           modes=ALL + ("onednn",), graph_for=True,
           shapes=[inputs(r(2, 3), r(2, 3)), inputs(r(5, 8), r(5, 8))])
profile_fn("if_and_loop", if_and_loop, inputs(r(4, 4), r(4, 4)), modes=ALL, graph_for=True)
profile_fn("while_loop_tensor", while_loop_tensor, inputs(r(3, 3), lambda: 3), modes=ALL)
profile_fn("reduce_then_elementwise", reduce_then_elementwise, inputs(r(4, 16)), modes=ALL,
           shapes=[inputs(r(2, 16))])
profile_fn("mlp_gelu", mlp_gelu, inputs(r(4, 8), r(8, 8), r(8)), modes=ALL + ("onednn",))
profile_fn("attention", attention, inputs(r(2, 4, 8), r(2, 5, 8), r(2, 5, 8)), modes=ALL)
profile_fn("optional_bias", optional_bias, inputs(r(3, 4), r(4)), modes=("te", "grad"),
           shapes=[inputs(r(3, 4), lambda: None)])
profile_fn("optional_bias_none", optional_bias, inputs(r(3, 4), lambda: None), modes=("te",))
profile_fn("scalar_args", scalar_args, inputs(r(5), lambda: 3, lambda: 0.25),
           modes=("te", "dynamic", "grad"))
profile_fn("tensor_list", tensor_list, inputs(lambda: [torch.randn(3), torch.randn(3),
                                                       torch.randn(3)]), modes=("te", "grad"))
profile_fn("where_compare", where_compare, inputs(r(6), r(6)), modes=("te", "dynamic", "grad"))
profile_fn("type_conversions", type_conversions, inputs(r(2, 3)), modes=("te", "dynamic"))
profile_fn("broadcast", broadcast, inputs(r(4, 1), r(1, 5)), modes=("te", "dynamic", "grad"),
           shapes=[inputs(r(4, 5), r(4, 5))])
profile_fn("unfusible", unfusible, inputs(r(3, 6)), modes=("te", "grad"))
profile_fn("mixed_fusible", mixed_fusible, inputs(r(3, 4), r(4, 4)),
           modes=("te", "dynamic", "grad", "onednn"))
profile_fn("cat_and_slice", cat_and_slice, inputs(r(2, 3), r(2, 3)), modes=("te", "dynamic"))
profile_fn("lstm_cell", lstm_cell, inputs(r(2, 4), r(2, 8), r(2, 8), r(32, 4), r(32, 8), r(32)),
           modes=ALL, graph_for=True)
profile_fn("in_place", in_place, inputs(r(4)), modes=("te", "grad"))
profile_fn("dropout_like", dropout_like, inputs(r(4), lambda: False), modes=("te", "grad"))
profile_fn("int_math_in_graph", int_math_in_graph, inputs(r(2, 3)), modes=("te", "dynamic"))
profile_fn("double_precision", elementwise_chain,
           inputs(r(3, dtype=torch.float64), r(3, dtype=torch.float64)), modes=("te",))
profile_fn("noncontiguous", elementwise_chain, inputs(lambda: torch.randn(4, 3).t(), r(3, 4)),
           modes=("te",))

_MODULES = {name: (make, inp) for name, make, inp in nn_defs.MODULES}
for _name in ["linear", "mlp_sequential", "conv_bn_relu", "small_cnn", "lstm_cell_loop",
              "transformer_encoder_layer", "module_list_dict", "nested_residual",
              "depthwise_separable", "training_branch"]:
    profile_module(_name, *_MODULES[_name])
profile_module("lstm_tagger", *_MODULES["lstm_tagger"], modes=("te",))
profile_module("multihead_attention", *_MODULES["multihead_attention"], modes=("te",))


from .vision import MODELS as _VISION  # noqa: E402

for _name, _make, _size in _VISION:
    if _name in ("resnet18", "mobilenet_v3_small", "squeezenet1_1"):
        profile_module("vision_" + _name, _make, inputs(r(1, 3, _size, _size)), modes=("te",),
                       graph_for=False)
