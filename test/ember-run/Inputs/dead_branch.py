import torch


def histogram_or_double(x: torch.Tensor, histogram: bool) -> torch.Tensor:
    if histogram:
        return torch.histc(x, bins=4)
    return x * 2.0
