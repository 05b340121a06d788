class Hardswish(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  inplace : Final[bool] = True
  def forward(self: __torch__.torch.nn.modules.activation.Hardswish,
    input: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.hardswish
    return _0(input, True, )
class ReLU(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  inplace : Final[bool] = True
  def forward(self: __torch__.torch.nn.modules.activation.ReLU,
    input: Tensor) -> Tensor:
    _1 = __torch__.torch.nn.functional.relu(input, True, )
    return _1
class Hardsigmoid(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : NoneType
  inplace : Final[bool] = False
  def forward(self: __torch__.torch.nn.modules.activation.Hardsigmoid,
    input: Tensor) -> Tensor:
    _2 = __torch__.torch.nn.functional.hardsigmoid
    return _2(input, False, )
