"""The Python package against the committed corpus: every .pt model of test/pt runs to the
outputs PyTorch recorded; arguments of every supported type convert (and the unsupported ones
are refused); arrays are shared without copies; errors are ember exceptions with TorchScript
locations; calls from threads are safe; memory does not grow over many calls. torch is not
needed: the tests that use torch tensors skip, saying so, when it is absent."""

import gc
import os
import threading

import numpy as np
import pytest

import ember

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
CORPUS = os.path.join(ROOT, "test", "pt")


def expected_failures():
    path = os.path.join(ROOT, "compiler", "tests", "pt_models_expected_failures.txt")
    names = set()
    if os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                names.add(line.split("\t")[0].strip())
    return names


def corpus():
    skip = expected_failures()
    for f in sorted(os.listdir(CORPUS)):
        name = f[:-3]
        if f.endswith(".pt") and os.path.exists(os.path.join(CORPUS, name + ".npz")) and name not in skip:
            yield name


def flatten(v, out):
    if isinstance(v, (tuple, list)):
        for x in v:
            flatten(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            flatten(x, out)
    else:
        out.append(np.asarray(v))
    return out


@pytest.mark.parametrize("name", list(corpus()))
def test_corpus_model_runs_to_pytorch_outputs(name):
    m = ember.load(os.path.join(CORPUS, name + ".pt"))
    z = np.load(os.path.join(CORPUS, name + ".npz"))
    inputs = [z[f"input_{i}"] for i in range(len([k for k in z.files if k.startswith("input_")]))]
    got = flatten(m(*inputs), [])
    want = [z[f"output_{i}"] for i in range(len([k for k in z.files if k.startswith("output_")]))]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


IDENTITY = ember.compile_source(
    "def same(x: torch.Tensor) -> torch.Tensor:\n    return x\n"
    "def view(x: torch.Tensor) -> torch.Tensor:\n    return x[1:]\n"
    "def add_(x: torch.Tensor) -> torch.Tensor:\n    return x.add_(1)\n"
)


def test_arrays_are_shared_not_copied():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert np.shares_memory(IDENTITY.same(a), a)
    assert np.shares_memory(IDENTITY.view(a), a)
    IDENTITY.add_(a)  # in place, as torch.from_numpy shares memory
    assert a[0, 0] == 1.0
    # Strided (transposed) arrays are read in place too.
    t = np.arange(6, dtype=np.float64).reshape(2, 3).T
    assert np.shares_memory(IDENTITY.same(t), t)
    # Read-only arrays are copied, never written.
    r = np.arange(3, dtype=np.float32)
    r.setflags(write=False)
    out = IDENTITY.add_(r)
    assert not np.shares_memory(out, r) and r[0] == 0.0


def test_results_keep_their_memory_alive():
    g = ember.load_graph("graph(%a : Tensor):\n  %r : Tensor = aten::relu(%a)\n  return (%r)\n")
    out = g(np.array([-1.0, 2.0], dtype=np.float32))
    gc.collect()
    np.testing.assert_array_equal(out, [0.0, 2.0])
    assert out.base is not None


ARGS = ember.compile_source(
    """
def kinds(i: int, f: float, b: bool, s: str, xs: List[int], t: Tuple[int, str], d: Dict[str, float], o: Optional[int]) -> Tuple[int, float, bool, str, List[int], Tuple[int, str], Dict[str, float], Optional[int]]:
    return (i + 1, f * 2.0, not b, s + "!", xs + [4], t, d, o)
"""
)


def test_every_supported_argument_type():
    got = ARGS.kinds(1, 1.5, True, "a", [1, 2, 3], (7, "x"), {"k": 0.5}, None)
    assert got == (2, 3.0, False, "a!", [1, 2, 3, 4], (7, "x"), {"k": 0.5}, None)


@pytest.mark.parametrize("bad", [object(), 1j, {1, 2}])
def test_unsupported_arguments_are_refused(bad):
    with pytest.raises(TypeError, match="cannot be passed"):
        IDENTITY.same(bad)


def test_errors_are_ember_exceptions_with_locations():
    m = ember.load(os.path.join(CORPUS, "mlp_scripted.pt"))
    with pytest.raises(ember.RunError, match=r"code/__torch__.*\.py:\d+:\d+"):
        m(np.ones((2, 2), dtype=np.float32))
    with pytest.raises(ember.LoadError):
        ember.load(b"not an archive")
    with pytest.raises(ember.CompileError, match=r"<source>:2:15: error"):
        ember.compile_source("def f(x: int) -> int:\n    return x +\n")
    assert issubclass(ember.RunError, ember.Error)


def test_methods_attributes_and_printing():
    m = ember.load(os.path.join(CORPUS, "mlp_scripted.pt"))
    assert "aten::" in m.graph or "prim::CallMethod" in m.graph
    assert "def forward" in m.code
    names = [n for n, _ in m.named_parameters()]
    assert "fc1.weight" in names
    assert isinstance(m.fc1, ember.Module)
    np.testing.assert_array_equal(m.fc1.weight, dict(m.named_parameters())["fc1.weight"])
    x = np.load(os.path.join(CORPUS, "mlp_scripted.npz"))["input_0"]
    np.testing.assert_array_equal(m.forward(x), m(x))


def test_save_and_optimize(tmp_path):
    m = ember.load(os.path.join(CORPUS, "conv_bn_relu_scripted.pt"))
    z = np.load(os.path.join(CORPUS, "conv_bn_relu_scripted.npz"))
    path = tmp_path / "saved.pt"
    m.save(path)
    np.testing.assert_array_equal(ember.load(path)(z["input_0"]), m(z["input_0"]))
    frozen = ember.optimize(m)
    np.testing.assert_allclose(frozen(z["input_0"]), z["output_0"], rtol=1e-4, atol=1e-5)


def test_threads_share_a_module():
    m = ember.load(os.path.join(CORPUS, "mlp_scripted.pt"))
    z = np.load(os.path.join(CORPUS, "mlp_scripted.npz"))
    want = m(z["input_0"])
    failures = []

    def worker():
        for _ in range(50):
            if not np.array_equal(m(z["input_0"]), want):
                failures.append("differs")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def test_no_leak_over_many_calls():
    g = ember.load_graph("graph(%a : Tensor):\n  %r : Tensor = aten::neg(%a)\n  return (%r)\n")
    x = np.ones(256, dtype=np.float32)
    for _ in range(1000):
        g(x)
    before = rss_kb()
    for _ in range(10000):
        g(x)
    gc.collect()
    assert rss_kb() - before < 8 * 1024, "RSS grew by more than 8 MB over 10,000 calls"


def test_modules_are_freed_when_dropped():
    import weakref

    before = rss_kb()
    for _ in range(20):
        m = ember.load(os.path.join(CORPUS, "conv_bn_relu_scripted.pt"))
        m(np.ones((1, 3, 8, 8), dtype=np.float32))
        del m
    gc.collect()
    assert rss_kb() - before < 16 * 1024


def test_torch_tensors_in_torch_tensors_out():
    torch = pytest.importorskip("torch", reason="torch is not installed: the torch tensor tests skip")
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    out = IDENTITY.same(a)
    assert isinstance(out, torch.Tensor)
    assert out.data_ptr() == a.data_ptr()
