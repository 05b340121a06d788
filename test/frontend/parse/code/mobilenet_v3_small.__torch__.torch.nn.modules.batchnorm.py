class BatchNorm2d(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = ["running_mean", "running_var", "num_batches_tracked", ]
  weight : Tensor
  bias : Tensor
  running_mean : Tensor
  running_var : Tensor
  num_batches_tracked : Tensor
  training : bool
  _is_full_backward_hook : NoneType
  momentum : Final[float] = 0.01
  track_running_stats : Final[bool] = True
  eps : Final[float] = 0.001
  affine : Final[bool] = True
  num_features : Final[int] = 16
  def forward(self: __torch__.torch.nn.modules.batchnorm.___torch_mangle_27.BatchNorm2d,
    input: Tensor) -> Tensor:
    _0 = __torch__.torch.nn.functional.batch_norm
    _1 = (self)._check_input_dim(input, )
    training = self.training
    if training:
      num_batches_tracked = self.num_batches_tracked
      _2 = torch.add_(num_batches_tracked, 1)
    else:
      pass
    training0 = self.training
    if training0:
      bn_training = True
    else:
      bn_training = False
    running_mean = self.running_mean
    running_var = self.running_var
    weight = self.weight
    bias = self.bias
    _3 = _0(input, running_mean, running_var, weight, bias, bn_training, 0.01, 0.001, )
    return _3
  def _check_input_dim(self: __torch__.torch.nn.modules.batchnorm.___torch_mangle_27.BatchNorm2d,
    input: Tensor) -> NoneType:
    if torch.ne(torch.dim(input), 4):
      _4 = torch.format("expected 4D input (got {}D input)", torch.dim(input))
      ops.prim.RaiseException(_4, "builtins.ValueError")
    else:
      pass
    return None
