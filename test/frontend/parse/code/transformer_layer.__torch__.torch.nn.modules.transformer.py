class TransformerEncoderLayer(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  activation_relu_or_gelu : int
  self_attn : __torch__.torch.nn.modules.activation.MultiheadAttention
  linear1 : __torch__.torch.nn.modules.linear.___torch_mangle_133.Linear
  dropout : __torch__.torch.nn.modules.dropout.___torch_mangle_134.Dropout
  linear2 : __torch__.torch.nn.modules.linear.___torch_mangle_135.Linear
  norm1 : __torch__.torch.nn.modules.normalization.LayerNorm
  norm2 : __torch__.torch.nn.modules.normalization.LayerNorm
  dropout1 : __torch__.torch.nn.modules.dropout.___torch_mangle_134.Dropout
  dropout2 : __torch__.torch.nn.modules.dropout.___torch_mangle_134.Dropout
  norm_first : Final[bool] = False
  def forward(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    src: Tensor,
    src_mask: Optional[Tensor]=None,
    src_key_padding_mask: Optional[Tensor]=None,
    is_causal: bool=False) -> Tensor:
    _0 = __torch__.torch.nn.functional._none_or_dtype
    _1 = __torch__.torch.nn.functional._canonical_mask
    _2 = __torch__.torch.backends.mha.get_fastpath_enabled
    why_not_sparsity_fast_path = "torch.backends.mha.get_fastpath_enabled() was not True"
    _3 = "input not batched; expected src.dim() of 3 but got {}"
    why_not_sparsity_fast_path0 = "self_attn.batch_first was not True"
    _4 = "some Tensor argument\'s device is neither one of {}"
    why_not_sparsity_fast_path1 = "grad is enabled and at least one of query or the input/output projection weights or biases requires_grad"
    _5 = uninitialized(Tensor)
    src_key_padding_mask0 = _1(src_key_padding_mask, "src_key_padding_mask", _0(src_mask, ), "src_mask", ops.prim.dtype(src), True, )
    src_mask0 = _1(src_mask, "src_mask", None, "", ops.prim.dtype(src), False, )
    is_fastpath_enabled = _2()
    if torch.__not__(is_fastpath_enabled):
      why_not_sparsity_fast_path2 = why_not_sparsity_fast_path
    else:
      if torch.ne(torch.dim(src), 3):
        why_not_sparsity_fast_path4 = torch.format(_3, torch.dim(src))
        why_not_sparsity_fast_path3 = why_not_sparsity_fast_path4
      else:
        training = self.training
        if training:
          why_not_sparsity_fast_path5 = "training is enabled"
        else:
          why_not_sparsity_fast_path5 = why_not_sparsity_fast_path0
        why_not_sparsity_fast_path3 = why_not_sparsity_fast_path5
      why_not_sparsity_fast_path2 = why_not_sparsity_fast_path3
    _6 = torch.len(why_not_sparsity_fast_path2)
    if torch.__not__(torch.gt(_6, 0)):
      self_attn = self.self_attn
      in_proj_weight = self_attn.in_proj_weight
      self_attn0 = self.self_attn
      in_proj_bias = self_attn0.in_proj_bias
      self_attn1 = self.self_attn
      out_proj = self_attn1.out_proj
      weight = out_proj.weight
      self_attn2 = self.self_attn
      out_proj0 = self_attn2.out_proj
      bias = out_proj0.bias
      norm1 = self.norm1
      weight0 = norm1.weight
      norm10 = self.norm1
      bias0 = norm10.bias
      norm2 = self.norm2
      weight1 = norm2.weight
      norm20 = self.norm2
      bias1 = norm20.bias
      linear1 = self.linear1
      weight2 = linear1.weight
      linear10 = self.linear1
      bias2 = linear10.bias
      linear2 = self.linear2
      weight3 = linear2.weight
      linear20 = self.linear2
      bias3 = linear20.bias
      _supported_device_type = ["cpu", "cuda", "xpu", "privateuseone"]
      _9 = annotate(List[bool], [])
      _10 = ops.prim.type(ops.prim.device(src))
      _11 = torch.__contains__(_supported_device_type, _10)
      _12 = torch.append(_9, _11)
      _13 = ops.prim.type(ops.prim.device(in_proj_weight))
      _14 = torch.__contains__(_supported_device_type, _13)
      _15 = torch.append(_9, _14)
      _16 = ops.prim.type(ops.prim.device(in_proj_bias))
      _17 = torch.__contains__(_supported_device_type, _16)
      _18 = torch.append(_9, _17)
      _19 = ops.prim.type(ops.prim.device(weight))
      _20 = torch.__contains__(_supported_device_type, _19)
      _21 = torch.append(_9, _20)
      _22 = ops.prim.type(ops.prim.device(bias))
      _23 = torch.__contains__(_supported_device_type, _22)
      _24 = torch.append(_9, _23)
      _25 = ops.prim.type(ops.prim.device(weight0))
      _26 = torch.__contains__(_supported_device_type, _25)
      _27 = torch.append(_9, _26)
      _28 = ops.prim.type(ops.prim.device(bias0))
      _29 = torch.__contains__(_supported_device_type, _28)
      _30 = torch.append(_9, _29)
      _31 = ops.prim.type(ops.prim.device(weight1))
      _32 = torch.__contains__(_supported_device_type, _31)
      _33 = torch.append(_9, _32)
      _34 = ops.prim.type(ops.prim.device(bias1))
      _35 = torch.__contains__(_supported_device_type, _34)
      _36 = torch.append(_9, _35)
      _37 = ops.prim.type(ops.prim.device(weight2))
      _38 = torch.__contains__(_supported_device_type, _37)
      _39 = torch.append(_9, _38)
      _40 = ops.prim.type(ops.prim.device(bias2))
      _41 = torch.__contains__(_supported_device_type, _40)
      _42 = torch.append(_9, _41)
      _43 = ops.prim.type(ops.prim.device(weight3))
      _44 = torch.__contains__(_supported_device_type, _43)
      _45 = torch.append(_9, _44)
      _46 = ops.prim.type(ops.prim.device(bias3))
      _47 = torch.__contains__(_supported_device_type, _46)
      _48 = torch.append(_9, _47)
      if torch.__not__(torch.all(_9)):
        why_not_sparsity_fast_path7 = torch.format(_4, _supported_device_type)
        why_not_sparsity_fast_path6 = why_not_sparsity_fast_path7
      else:
        if torch.is_grad_enabled():
          _50 = annotate(List[bool], [])
          _51 = torch.append(_50, ops.prim.requires_grad(src))
          _52 = ops.prim.requires_grad(in_proj_weight)
          _53 = torch.append(_50, _52)
          _54 = ops.prim.requires_grad(in_proj_bias)
          _55 = torch.append(_50, _54)
          _56 = ops.prim.requires_grad(weight)
          _57 = torch.append(_50, _56)
          _58 = torch.append(_50, ops.prim.requires_grad(bias))
          _59 = ops.prim.requires_grad(weight0)
          _60 = torch.append(_50, _59)
          _61 = torch.append(_50, ops.prim.requires_grad(bias0))
          _62 = ops.prim.requires_grad(weight1)
          _63 = torch.append(_50, _62)
          _64 = torch.append(_50, ops.prim.requires_grad(bias1))
          _65 = ops.prim.requires_grad(weight2)
          _66 = torch.append(_50, _65)
          _67 = torch.append(_50, ops.prim.requires_grad(bias2))
          _68 = ops.prim.requires_grad(weight3)
          _69 = torch.append(_50, _68)
          _70 = torch.append(_50, ops.prim.requires_grad(bias3))
          _49 = torch.any(_50)
        else:
          _49 = False
        if _49:
          why_not_sparsity_fast_path8 = why_not_sparsity_fast_path1
        else:
          why_not_sparsity_fast_path8 = why_not_sparsity_fast_path2
        why_not_sparsity_fast_path6 = why_not_sparsity_fast_path8
      _71 = torch.len(why_not_sparsity_fast_path6)
      if torch.__not__(torch.gt(_71, 0)):
        self_attn3 = self.self_attn
        _74 = (self_attn3).merge_masks(src_mask0, src_key_padding_mask0, src, )
        merged_mask, mask_type, = _74
        self_attn4 = self.self_attn
        embed_dim = self_attn4.embed_dim
        self_attn5 = self.self_attn
        num_heads = self_attn5.num_heads
        self_attn6 = self.self_attn
        in_proj_weight0 = self_attn6.in_proj_weight
        self_attn7 = self.self_attn
        in_proj_bias0 = self_attn7.in_proj_bias
        self_attn8 = self.self_attn
        out_proj1 = self_attn8.out_proj
        weight4 = out_proj1.weight
        self_attn9 = self.self_attn
        out_proj2 = self_attn9.out_proj
        bias4 = out_proj2.bias
        activation_relu_or_gelu = self.activation_relu_or_gelu
        _75 = torch.eq(activation_relu_or_gelu, 2)
        norm11 = self.norm1
        weight5 = norm11.weight
        norm12 = self.norm1
        bias5 = norm12.bias
        norm21 = self.norm2
        weight6 = norm21.weight
        norm22 = self.norm2
        bias6 = norm22.bias
        linear11 = self.linear1
        weight7 = linear11.weight
        linear12 = self.linear1
        bias7 = linear12.bias
        linear21 = self.linear2
        weight8 = linear21.weight
        linear22 = self.linear2
        bias8 = linear22.bias
        _76 = torch._transformer_encoder_layer_fwd(src, embed_dim, num_heads, in_proj_weight0, in_proj_bias0, weight4, bias4, _75, False, 1.0000000000000001e-05, weight5, bias5, weight6, bias6, weight7, bias7, weight8, bias8, merged_mask, mask_type)
        _72, _73 = True, _76
      else:
        _72, _73 = False, _5
      _7, _8 = _72, _73
    else:
      _7, _8 = False, _5
    if _7:
      _77 = _8
    else:
      norm13 = self.norm1
      _78 = (self)._sa_block(src, src_mask0, src_key_padding_mask0, is_causal, )
      x = (norm13).forward(torch.add(src, _78), )
      norm23 = self.norm2
      _79 = torch.add(x, (self)._ff_block(x, ))
      _77 = (norm23).forward(_79, )
    return _77
  def _sa_block(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor,
    attn_mask: Optional[Tensor],
    key_padding_mask: Optional[Tensor],
    is_causal: bool=False) -> Tensor:
    self_attn = self.self_attn
    _80 = (self_attn).forward(x, x, x, key_padding_mask, False, attn_mask, True, is_causal, )
    x0 = (_80)[0]
    dropout1 = self.dropout1
    return (dropout1).forward(x0, )
  def _ff_block(self: __torch__.torch.nn.modules.transformer.TransformerEncoderLayer,
    x: Tensor) -> Tensor:
    linear2 = self.linear2
    dropout = self.dropout
    linear1 = self.linear1
    _81 = __torch__.torch.nn.functional.relu((linear1).forward(x, ), False, )
    x1 = (linear2).forward((dropout).forward(_81, ), )
    dropout2 = self.dropout2
    return (dropout2).forward(x1, )
