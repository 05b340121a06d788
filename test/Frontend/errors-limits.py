# RUN: ember-opt %s --split-input-file --verify-diagnostics
# Errors where Ember, having no Python, cannot do what PyTorch does (each says how PyTorch
# differs), and PyTorch's own errors of the same constructs.
import torch
# PyTorch imports any module in Python; Ember knows torch, math and typing only.
# expected-error @+1 {{import of module 'numpy' is not supported in TorchScript: only torch, math and typing can be imported}}
import numpy

def f(x: int) -> int:
    return x

# -----
import torch
import torch.nn.functional as F

def f(x: torch.Tensor) -> torch.Tensor:
    # PyTorch compiles this (to max_pool2d_with_indices).
    # expected-error @+1 {{max_pool2d with return_indices=True is not supported yet}}
    y = F.max_pool2d(x, 2, return_indices=True)
    return x

# -----
import torch
import torch.nn.functional as F

def f(x: torch.Tensor, b: bool) -> torch.Tensor:
    # expected-error @+1 {{Keyword argument 'return_indices' for boolean dispatch at position was not constant}}
    y = F.max_pool2d(x, 2, return_indices=b)
    return x

# -----
import torch
import torch.nn.functional as F

def f(x: torch.Tensor, b: bool) -> torch.Tensor:
    # expected-error @+1 {{Argument for boolean dispatch at position 6 was not constant}}
    y = F.max_pool2d(x, 2, 2, 0, 1, False, b)
    return x

# -----
import torch
import typing

def f(x: int) -> int:
    # PyTorch looks up a builtin op `List` and fails to match its schema.
    # expected-error @+1 {{type typing.List cannot be called in TorchScript}}
    y = typing.List(x)
    return x

# -----
import torch

def f(x: int) -> int:
    # PyTorch fails with "Unknown builtin op: aten::JITException".
    # expected-error @+1 {{type torch.jit.Error cannot be called in TorchScript}}
    y = torch.jit.Error(x)
    return x
