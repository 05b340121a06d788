# torch.nn.modules.sparse as Ember compiles it (see linear.py).
from typing import Optional

import torch
from torch import Tensor


class Embedding(torch.nn.Module):
    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: Optional[int] = None,
    ):
        super().__init__()
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise ValueError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise ValueError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.weight = torch.nn.Parameter(torch.empty(num_embeddings, embedding_dim))
        with torch.no_grad():
            self.weight.normal_()
            if padding_idx is not None:
                self.weight[padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        idx = self.padding_idx
        return torch.embedding(self.weight, input, -1 if idx is None else idx)
