"""Seeded random ops compared by value with PyTorch's CPU generator: each case seeds the
default generator inside the graph (`torch.manual_seed`) and then draws. Exact cases set
rtol=atol=0 (bit for bit). In-place fills of strided views show PyTorch's memory-order walk."""

from typing import List

import torch

EXACT = dict(rtol=0.0, atol=0.0)


def cases(c):
    def rand(seed: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.rand(s), torch.rand(s, dtype=torch.float64), torch.rand(s, dtype=torch.float32)

    c.add("rand_seeded", rand, 0, [2, 3], **EXACT)
    c.add("rand_seeded_large", rand, 1234, [1000], **EXACT)
    c.add("rand_seeded_big_seed", rand, 2**40 + 7, [5], **EXACT)

    def rand_half(seed: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.rand(s, dtype=torch.float16), torch.rand(s, dtype=torch.bfloat16), torch.randn(s, dtype=torch.float16)

    c.add("rand_half_seeded", rand_half, 0, [3, 5], **EXACT)

    def rand_half_large(seed: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.rand(s, dtype=torch.float16), torch.rand(s, dtype=torch.bfloat16)

    c.add("rand_half_seeded_large", rand_half_large, 0, [300], **EXACT)

    def rand_like(seed: int, x):
        torch.manual_seed(seed)
        return torch.rand_like(x), torch.randn_like(x)

    c.add("rand_like_seeded", rand_like, 3, torch.zeros(4, 5, dtype=torch.float64), **EXACT)

    def randn(seed: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.randn(s, dtype=torch.float64), torch.randn(s, dtype=torch.float64)

    # Below 16 elements: one normal per element, the second of each pair cached across calls.
    c.add("randn_f64_small", randn, 0, [3, 5], **EXACT)
    c.add("randn_f64_odd_then_next", randn, 5, [1], **EXACT)
    # From 16 elements: the batched Box-Muller with a redrawn tail.
    c.add("randn_f64_batched", randn, 0, [16], **EXACT)
    c.add("randn_f64_batched_tail", randn, 42, [5, 7], **EXACT)

    def randn_f32(seed: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.randn(s), torch.randn(s)

    c.add("randn_f32_small", randn_f32, 0, [15], **EXACT)
    c.add("randn_f32_batched", randn_f32, 0, [37], **EXACT)
    c.add("randn_f32_batched_large", randn_f32, 0, [4099], **EXACT)
    c.add("randn_f32_batched_wide", randn_f32, 99, [3, 2048], **EXACT)

    def randn_reduced(seed: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.randn(s, dtype=torch.float16), torch.randn(s, dtype=torch.bfloat16)

    # float16/bfloat16 run the float kernel; uniforms are drawn for whole blocks only.
    c.add("randn_half_batched", randn_reduced, 0, [32], **EXACT)
    c.add("randn_half_batched_tail", randn_reduced, 3, [100], **EXACT)

    def normal(seed: int, mean: float, std: float, s: List[int]):
        torch.manual_seed(seed)
        return torch.normal(mean, std, s), torch.normal(mean, std, s, dtype=torch.float64)

    c.add("normal_float_small", normal, 1, 2.0, 0.5, [7], **EXACT)
    c.add("normal_float_fused", normal, 8, 0.1, 0.3, [9], **EXACT)
    c.add("normal_float_f64_batched", normal, 8, 0.1, 0.3, [40], **EXACT)
    c.add("normal_float_batched", normal, 1, -1.0, 3.0, [20], **EXACT)

    def normal_reduced(seed: int, mean: float, std: float, s: List[int]):
        torch.manual_seed(seed)
        return torch.normal(mean, std, s, dtype=torch.float16), torch.normal(mean, std, s, dtype=torch.bfloat16)

    c.add("normal_float_half_batched", normal_reduced, 5, 0.1, 0.3, [37], **EXACT)

    def normal_f64(seed: int, mean: float, std: float, s: List[int]):
        torch.manual_seed(seed)
        return torch.normal(mean, std, s, dtype=torch.float64)

    c.add("normal_f64_batched_fused", normal_f64, 8, 0.1, 0.3, [40], **EXACT)

    def normal_tensors(seed: int, m, s):
        torch.manual_seed(seed)
        return torch.normal(m, s), torch.normal(m, 2.0), torch.normal(1.5, s)

    c.add(
        "normal_tensor_args",
        normal_tensors,
        9,
        torch.tensor([0.0, 1.0, -2.0, 10.0], dtype=torch.float64),
        torch.tensor([1.0, 0.5, 2.0, 0.0], dtype=torch.float64),
        **EXACT,
    )

    c.add(
        "normal_tensor_args_f32",
        normal_tensors,
        9,
        torch.tensor([0.1, 1.3, -2.7, 10.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]),
        torch.tensor([1.1, 0.5, 2.3, 0.0, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.7]),
        **EXACT,
    )

    def normal_(seed: int, x):
        torch.manual_seed(seed)
        return x.normal_(3.0, 2.0)

    c.add("normal_inplace_f64", normal_, 2, torch.zeros(3, 4, dtype=torch.float64), **EXACT)
    c.add("normal_inplace_f32_batched", normal_, 2, torch.zeros(5, 7), **EXACT)
    c.add("normal_inplace_f16_batched", normal_, 2, torch.zeros(5, 7, dtype=torch.float16), **EXACT)

    def normal_transposed(seed: int, x):
        y = x.t()
        torch.manual_seed(seed)
        y.normal_(3.0, 2.0)
        return x, y

    # A strided tensor takes one normal per element (no batching), written in memory order.
    c.add("normal_inplace_transposed", normal_transposed, 2, torch.zeros(4, 8), **EXACT)

    def uniform_(seed: int, x, lo: float, hi: float):
        torch.manual_seed(seed)
        return x.uniform_(lo, hi)

    c.add("uniform_inplace_f32", uniform_, 4, torch.zeros(3, 4), -2.0, 3.0, **EXACT)
    c.add("uniform_inplace_f64", uniform_, 4, torch.zeros(6, dtype=torch.float64), 0.5, 0.75, **EXACT)
    c.add("uniform_inplace_f32_inexact_range", uniform_, 4, torch.zeros(500), 0.1, 0.7, **EXACT)
    c.add("uniform_inplace_f64_inexact_range", uniform_, 4, torch.zeros(500, dtype=torch.float64), 0.1, 0.7, **EXACT)

    def uniform_strided(seed: int, x):
        y = x.t()[:, 1:]
        torch.manual_seed(seed)
        y.uniform_(-1.0, 1.0)
        return x, y

    c.add("uniform_inplace_strided", uniform_strided, 4, torch.zeros(5, 3), **EXACT)

    def randint(seed: int, low: int, high: int, s: List[int]):
        torch.manual_seed(seed)
        return (
            torch.randint(low, high, s),
            torch.randint(high, s, dtype=torch.int32),
            torch.randint(low, high, s, dtype=torch.float64),
        )

    c.add("randint_small_range", randint, 0, -5, 10, [3, 4], **EXACT)

    def randint_wide(seed: int, low: int, high: int, s: List[int]):
        torch.manual_seed(seed)
        return torch.randint(low, high, s), torch.randint(low, high, s, dtype=torch.float64)

    # A range of 2^32 or more takes 64-bit draws.
    c.add("randint_wide_range", randint_wide, 7, -(2**40), 2**40, [6], **EXACT)

    def randint_i8(seed: int, low: int, high: int):
        torch.manual_seed(seed)
        return torch.randint(low, high, [6], dtype=torch.int8)

    c.add("randint_int8_from_out_of_bounds", randint_i8, 0, -200, 5)
    c.add("randint_int8_to_out_of_bounds", randint_i8, 0, 0, 200)
    c.add("randint_int8_full_range", randint_i8, 0, -128, 128, **EXACT)

    def randperm(seed: int, n: int):
        torch.manual_seed(seed)
        return torch.randperm(n), torch.randperm(n, dtype=torch.int32)

    c.add("randperm_seeded", randperm, 0, 10, **EXACT)
    c.add("randperm_seeded_large", randperm, 11, 500, **EXACT)
    c.add("randperm_one", randperm, 11, 1, **EXACT)

    def bernoulli(seed: int, p):
        torch.manual_seed(seed)
        return torch.bernoulli(p), torch.bernoulli(p)

    c.add("bernoulli_probs_f32", bernoulli, 0, torch.rand(4, 5), **EXACT)
    c.add("bernoulli_probs_f64", bernoulli, 0, torch.rand(4, 5, dtype=torch.float64), **EXACT)

    def bernoulli_scalar(seed: int, x, p: float):
        torch.manual_seed(seed)
        return torch.bernoulli(x, p), x.bernoulli_(p)

    c.add("bernoulli_scalar_p", bernoulli_scalar, 3, torch.zeros(1000), 0.3, **EXACT)

    def bernoulli_strided(seed: int, x, p):
        y = x.t()
        torch.manual_seed(seed)
        y.bernoulli_(p)
        return x, y

    c.add("bernoulli_inplace_strided", bernoulli_strided, 6, torch.zeros(4, 6), torch.rand(6, 4), **EXACT)

    def uniform_expanded(x):
        return x.expand(2, 3).uniform_()

    def normal_expanded(x):
        return x.expand(2, 3).normal_()

    def bernoulli_expanded(x):
        return x.expand(2, 3).bernoulli_(0.5)

    # Elements sharing memory (an expanded view) cannot be filled in place.
    c.add("uniform_inplace_expanded", uniform_expanded, torch.zeros(3))
    c.add("normal_inplace_expanded", normal_expanded, torch.zeros(3))
    c.add("bernoulli_inplace_expanded", bernoulli_expanded, torch.zeros(3))

    def mixed(seed: int):
        torch.manual_seed(seed)
        a = torch.rand([3])
        b = torch.randn([3], dtype=torch.float64)
        d = torch.randint(0, 100, [4])
        e = torch.randn([2], dtype=torch.float64)
        return a, b, d, e

    c.add("mixed_sequence", mixed, 17, **EXACT)
