# torch.no_grad and torch.enable_grad as TorchScript sees them: classes of module
# torch.autograd.grad_mode used as context managers (`with torch.no_grad():`). Compiled by
# Ember's frontend into a unit the first time a file uses one.
import torch
from typing import Any


class no_grad:
    def __init__(self):
        self.prev = False

    def __enter__(self) -> None:
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        torch.set_grad_enabled(self.prev)


class enable_grad:
    def __init__(self):
        self.prev = False

    def __enter__(self) -> None:
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(True)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        torch.set_grad_enabled(self.prev)
