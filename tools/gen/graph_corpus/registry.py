"""Registration of corpus cases.

A case is (category, name, producer). A producer takes no arguments and returns a list of
(suffix, graph) pairs; each becomes test/corpus/graphs/<category>/<name><suffix>.ir.
Producers run lazily, in registration order, so a failing case is logged and dropped without
stopping the others.
"""

import torch

CASES = []


def register(category, name, producer):
    CASES.append((category, name, producer))


def _graphs_of_scripted(fn, inlined):
    out = [("", fn.graph)]
    if inlined:
        out.append((".inlined", fn.inlined_graph))
    return out


def scripted(category, inlined=False, name=None):
    """Decorator: torch.jit.script the plain Python function and record its graph.

    The function itself is returned unchanged so other cases can call it.
    """

    def deco(fn):
        register(category, name or fn.__name__,
                 lambda: _graphs_of_scripted(torch.jit.script(fn), inlined))
        return fn

    return deco


def scripted_module(category, name, make, inlined=True, methods=("forward",)):
    """Script the module built by make() and record each method graph (and its inlined form)."""

    def produce():
        m = torch.jit.script(make().eval())
        out = []
        for meth in methods:
            f = getattr(m, meth)
            suffix = "" if meth == "forward" else "." + meth
            out.append((suffix, f.graph))
            if inlined:
                out.append((suffix + ".inlined", f.inlined_graph))
        return out

    register(category, name, produce)


def traced_module(category, name, make, inputs, inlined=True):
    """Trace the module built by make() on inputs() and record forward and its inlined form."""

    def produce():
        m = torch.jit.trace(make().eval(), inputs(), check_trace=False, strict=False)
        out = [("", m.graph)]
        if inlined:
            out.append((".inlined", m.inlined_graph))
        return out

    register(category, name, produce)


def traced_function(category, name, fn, inputs):
    def produce():
        return [("", torch.jit.trace(fn, inputs(), check_trace=False).graph)]

    register(category, name, produce)
