def forward(x: Tensor) -> Tensor:
    return torch.cat([torch.sigmoid(x) * 2.0, torch.exp(x[:, :1]) * 4.0], 1)
