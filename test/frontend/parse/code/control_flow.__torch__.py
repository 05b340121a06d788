class ControlFlow(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  scale : float
  names : List[str]
  lin : __torch__.torch.nn.modules.linear.Linear
  def forward(self: __torch__.ControlFlow,
    x: Tensor,
    y: Optional[Tensor]=None) -> Tuple[Tensor, Dict[str, int]]:
    d = annotate(Dict[str, int], {})
    names = self.names
    _0 = [9223372036854775807, torch.len(names)]
    for k in range(ops.prim.min(_0)):
      name = names[k]
      torch._set_item(d, name, k)
    if torch.__isnot__(y, None):
      y0 = unchecked_cast(Tensor, y)
      x0 = torch.mul(x, y0)
    else:
      x0 = x
    _1 = bool(torch.gt(torch.sum(x0), -100.))
    x1 = x0
    i = 0
    _2 = _1
    while _2:
      _3 = __torch__.torch.nn.functional.relu(x1, False, )
      x2 = torch.sub(_3, 1)
      i0 = torch.add(i, 1)
      if torch.lt(i0, 3):
        _5 = bool(torch.gt(torch.sum(x2), -100.))
        _4 = _5
      else:
        _4 = False
      _2, x1, i = _4, x2, i0
    xs = annotate(List[Tensor], [])
    _6 = torch.unbind(x1)
    for _7 in range(torch.len(_6)):
      t = _6[_7]
      scale = self.scale
      _8 = torch.append(xs, torch.mul(t, scale))
    s = torch.format("{} items", i)
    if torch.gt(torch.len(s), 0):
      pass
    else:
      ops.prim.RaiseException("AssertionError: empty")
    if torch.eq(torch.dim(x1), 0):
      ops.prim.RaiseException("scalar input", "builtins.RuntimeError")
    else:
      pass
    lin = self.lin
    _9 = (lin).forward((self).helper(torch.stack(xs), 4, ), )
    return (_9, d)
  def helper(self: __torch__.ControlFlow,
    x: Tensor,
    n: int) -> Tensor:
    x3 = x
    _10 = 0
    _11 = torch.gt(n, 0)
    while _11:
      _12 = torch.eq(torch.remainder(_10, 2), 0)
      if _12:
        _13, _14 = True, torch.add(x3, _10)
      else:
        if torch.eq(_10, 3):
          _15 = False
        else:
          _15 = True
        _13, _14 = _15, x3
      _16 = torch.add(_10, 1)
      _17 = torch.__and__(torch.lt(_16, n), _13)
      _11, x3, _10 = _17, _14, _16
    return x3
