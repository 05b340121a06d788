# torch.nn.modules.batchnorm as Ember compiles it (see linear.py). In training mode (a module
# just constructed is in it) the batch's statistics normalize and the running ones are updated,
# as PyTorch's forward does. BatchNormNd is a template: mod.rs makes BatchNorm1d and
# BatchNorm2d of it, with the ranks each takes (RANKS) and their description (EXPECTED).
from typing import Optional

import torch
from torch import Tensor


class BatchNormNd(torch.nn.Module):
    weight: Optional[Tensor]
    bias: Optional[Tensor]
    running_mean: Optional[Tensor]
    running_var: Optional[Tensor]
    num_batches_tracked: Optional[Tensor]

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: Optional[float] = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
    ):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = torch.nn.Parameter(torch.ones(num_features))
            self.bias = torch.nn.Parameter(torch.zeros(num_features))
        else:
            self.weight = None
            self.bias = None
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features))
            self.register_buffer("running_var", torch.ones(num_features))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.running_mean = None
            self.running_var = None
            self.num_batches_tracked = None

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in RANKS:
            raise ValueError("expected EXPECTED input (got {}D input)".format(input.dim()))
        momentum = self.momentum
        factor = 0.0 if momentum is None else momentum
        tracked = self.num_batches_tracked
        if self.training and self.track_running_stats and tracked is not None:
            tracked.add_(1)
            if momentum is None:
                factor = 1.0 / float(tracked)
        if self.training:
            use_batch_stats = True
        else:
            use_batch_stats = self.running_mean is None and self.running_var is None
        keep_running = not self.training or self.track_running_stats
        return torch.nn.functional.batch_norm(
            input,
            self.running_mean if keep_running else None,
            self.running_var if keep_running else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )
