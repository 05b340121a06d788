def batch_norm(input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor]=None,
    bias: Optional[Tensor]=None,
    training: bool=False,
    momentum: float=0.10000000000000001,
    eps: float=1.0000000000000001e-05) -> Tensor:
  _0 = __torch__.torch.nn.functional._verify_batch_size
  _1 = "batch_norm eps must be positive during training, but got {}"
  _2 = "batch_norm eps must be non-negative, but got {}"
  if training:
    _3 = _0(torch.size(input), )
  else:
    pass
  if training:
    _4 = torch.le(eps, 0.)
  else:
    _4 = False
  if _4:
    ops.prim.RaiseException(torch.format(_1, eps), "builtins.ValueError")
  else:
    if torch.lt(eps, 0.):
      ops.prim.RaiseException(torch.format(_2, eps), "builtins.ValueError")
    else:
      pass
  _5 = torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)
  return _5
def hardswish(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    _6 = torch.hardswish_(input)
  else:
    _6 = torch.hardswish(input)
  return _6
def relu(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    result = torch.relu_(input)
  else:
    result = torch.relu(input)
  return result
def adaptive_avg_pool2d(input: Tensor,
    output_size: List[int]) -> Tensor:
  _7 = torch.gt(torch.len(torch.size(input)), torch.len(output_size))
  if _7:
    pass
  else:
    ops.prim.RaiseException("AssertionError: ")
  _8 = torch.adaptive_avg_pool2d(input, output_size)
  return _8
def hardsigmoid(input: Tensor,
    inplace: bool=False) -> Tensor:
  if inplace:
    _9 = torch.hardsigmoid_(input)
  else:
    _9 = torch.hardsigmoid(input)
  return _9
def dropout(input: Tensor,
    p: float=0.5,
    training: bool=True,
    inplace: bool=False) -> Tensor:
  _10 = "dropout probability has to be between 0 and 1, but got {}"
  if torch.lt(p, 0.):
    _11 = True
  else:
    _11 = torch.gt(p, 1.)
  if _11:
    ops.prim.RaiseException(torch.format(_10, p), "builtins.ValueError")
  else:
    pass
  if inplace:
    _12 = torch.dropout_(input, p, training)
  else:
    _12 = torch.dropout(input, p, training)
  return _12
def _verify_batch_size(size: List[int]) -> NoneType:
  _13 = "Expected more than 1 value per channel when training, got input size {}"
  size_prods = size[0]
  size_prods0 = size_prods
  for i in range(torch.sub(torch.len(size), 2)):
    size_prods1 = torch.mul(size_prods0, size[torch.add(i, 2)])
    size_prods0 = size_prods1
  if torch.eq(size_prods0, 1):
    ops.prim.RaiseException(torch.format(_13, size), "builtins.ValueError")
  else:
    pass
  return None
