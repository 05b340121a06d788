"""torch.* functions, Tensor methods, F.*, indexing and slicing, dtypes, devices, in-place ops,
and small whole programs on tensors."""

from scriptcases import t, ti


def cases(c):
    c.add(
        "arith_broadcast",
        """
        def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return (x + y) * 2 - y / 3 + x ** 2
        """,
        (t(2, 3), t(3)),
    )
    c.add(
        "scalar_tensor_mix",
        """
        def f(x: torch.Tensor, a: int, b: float) -> torch.Tensor:
            return a * x + b - x * a / b
        """,
        (t(3), 2, 0.5),
    )
    c.add(
        "reductions",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
            return x.sum(), x.mean(dim=1), x.max(), torch.amin(x, dim=0, keepdim=True)
        """,
        (t(3, 4),),
    )
    c.add(
        "max_with_dim_tuple",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            values, indices = x.max(dim=1)
            return values, indices
        """,
        (t(3, 4),),
    )
    c.add(
        "shape_ops",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, List[int]]:
            y = x.view(2, 6).transpose(0, 1).contiguous()
            z = x.reshape(-1).unsqueeze(0)
            w = torch.flatten(x.permute(2, 0, 1), 1)
            return y, z, w, list(x.shape)
        """,
        (t(2, 3, 2),),
    )
    c.add(
        "size_and_dim",
        """
        def f(x: torch.Tensor) -> Tuple[int, int, int, List[int]]:
            return x.size(0), x.dim(), x.numel(), x.size()
        """,
        (t(2, 5),),
    )
    c.add(
        "indexing",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
            return x[0], x[:, 1], x[1:, ::2], x[..., -1]
        """,
        (t(3, 4),),
    )
    c.add(
        "indexing_none_and_tensor",
        """
        def f(x: torch.Tensor, idx: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            return x[None, :, 0], x[idx]
        """,
        (t(4, 2), ti(3, mod=4) + 2),
    )
    c.add(
        "index_assignment",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            y = x.clone()
            y[0] = 5.0
            y[1:, 0] = torch.zeros(2)
            return y
        """,
        (t(3, 2),),
    )
    c.add(
        "creation_ops",
        """
        def f(n: int) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
            return (
                torch.zeros(n, 2),
                torch.ones([2, n], dtype=torch.int64),
                torch.arange(n),
                torch.full([2], 3.5),
                torch.eye(n),
            )
        """,
        (3,),
    )
    c.add(
        "tensor_literal",
        """
        def f(a: float) -> Tuple[torch.Tensor, torch.Tensor]:
            return torch.tensor([1.0, a]), torch.tensor([[1, 2], [3, 4]])
        """,
        (2.5,),
    )
    c.add(
        "dtype_conversions",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
            return x.to(torch.float64), x.long(), x.to(dtype=torch.int32).float(), x.element_size()
        """,
        (t(3, scale=3.0),),
    )
    c.add(
        "dtype_attr",
        """
        def f(x: torch.Tensor) -> Tuple[bool, bool, torch.Tensor]:
            return x.dtype == torch.float32, x.is_floating_point(), torch.zeros(2, dtype=x.dtype)
        """,
        (t(2),),
    )
    c.add(
        "device_ops",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, bool]:
            y = x.to(x.device)
            return torch.ones(2, device=x.device) + y, x.is_cuda
        """,
        (t(2),),
    )
    c.add(
        "inplace_methods",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            y = x.clone()
            y.add_(1)
            y.mul_(2.0)
            y.clamp_(min=0.0, max=2.5)
            return y
        """,
        (t(4),),
    )
    c.add(
        "functional_ops",
        """
        def f(x: torch.Tensor) -> List[torch.Tensor]:
            return [
                F.relu(x),
                F.softmax(x, dim=-1),
                F.gelu(x),
                F.leaky_relu(x, 0.1),
                torch.sigmoid(x),
                torch.tanh(x),
            ]
        """,
        (t(2, 3),),
    )
    c.add(
        "functional_linear_conv",
        """
        def f(x: torch.Tensor, w: torch.Tensor, img: torch.Tensor, k: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            return F.linear(x, w), F.conv2d(img, k, padding=1)
        """,
        (t(2, 3), t(4, 3), t(1, 1, 4, 4), t(2, 1, 3, 3)),
    )
    c.add(
        "functional_pad_pool",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            return F.pad(x, [1, 1]), F.max_pool2d(x, 2)
        """,
        (t(1, 2, 4, 4),),
    )
    c.add(
        "matmul_family",
        """
        def f(a: torch.Tensor, b: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return a @ b, torch.mm(a, b), torch.matmul(a, b).t()
        """,
        (t(2, 3), t(3, 4)),
    )
    c.add(
        "cat_stack_split",
        """
        def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
            c = torch.cat([x, y], dim=0)
            s = torch.stack((x, y))
            parts = torch.split(c, 2)
            return [c, s, parts[0], parts[-1]]
        """,
        (t(2, 2), t(2, 2, scale=2.0)),
    )
    c.add(
        "chunk_unpack",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            a, b = x.chunk(2, dim=1)
            return a * b
        """,
        (t(2, 4),),
    )
    c.add(
        "comparisons_where",
        """
        def f(x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            m = x > y
            return m, torch.where(m, x, y), (x == y) | (x < 0)
        """,
        (t(4), t(4, scale=0.5)),
    )
    c.error(
        "item_and_tolist",
        """
        def f(x: torch.Tensor) -> Tuple[float, List[float], int]:
            return x.sum().item(), x.tolist(), int(x.argmax())
        """,
    )
    c.add(
        "item_and_annotated_tolist",
        """
        def f(x: torch.Tensor) -> Tuple[float, List[float], int]:
            values: List[float] = x.tolist()
            return x.sum().item(), values, int(x.argmax())
        """,
        (t(3),),
    )
    c.add(
        "masked_fill_and_sort",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            v, i = torch.sort(x.masked_fill(x < 0, 0.0), descending=True)
            return v, i
        """,
        (t(5),),
    )
    c.add(
        "math_on_tensors",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            return torch.exp(x).log() + x.abs().sqrt() - torch.pow(x, 2) + x.clamp(-0.5, 0.5)
        """,
        (t(4),),
    )
    c.add(
        "numel_loop_program",
        """
        def f(x: torch.Tensor) -> torch.Tensor:
            out = torch.zeros_like(x)
            for i in range(x.size(0)):
                if i % 2 == 0:
                    out[i] = x[i] * 2
                else:
                    out[i] = x[i] - 1
            return out
        """,
        (t(4, 2),),
    )
    c.add(
        "rnn_cell_program",
        """
        def cell(x: torch.Tensor, h: torch.Tensor, w: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
            return torch.tanh(x @ w + h @ u)


        def f(xs: torch.Tensor, w: torch.Tensor, u: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
            h = torch.zeros(xs.size(1), u.size(0))
            outs: List[torch.Tensor] = []
            for x in xs.unbind(0):
                h = cell(x, h, w, u)
                outs.append(h)
            return h, outs
        """,
        (t(3, 2, 4), t(4, 5), t(5, 5, scale=0.5)),
    )
    c.add(
        "optional_tensor_args_to_ops",
        """
        def f(x: torch.Tensor, w: Optional[torch.Tensor]) -> torch.Tensor:
            return F.layer_norm(x, [3], w)
        """,
        (t(2, 3), t(3)),
        (t(2, 3), None),
    )
    c.add(
        "tensor_bool_context",
        """
        def f(x: torch.Tensor) -> int:
            n = 0
            while bool(x.any()):
                x = x[1:]
                n += 1
            return n
        """,
        (ti(4, mod=3),),
    )
    c.add(
        "tensor_iter_zip",
        """
        def f(x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
            out: List[torch.Tensor] = []
            for a, b in zip(x, y):
                out.append(a * b)
            return out
        """,
        (t(2, 2), t(3, 2)),
    )
    c.add(
        "tensor_methods_misc",
        """
        def f(x: torch.Tensor) -> List[torch.Tensor]:
            return [
                x.expand(2, 3),
                x.repeat(2),
                x.flip(0),
                x.cumsum(0),
                x.type_as(torch.zeros(1, dtype=torch.float64)),
                x.new_zeros([2]),
            ]
        """,
        (t(3),),
    )
    c.add(
        "torch_empty_like_ops",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, List[int]]:
            z = torch.zeros_like(x, dtype=torch.int64)
            o = torch.ones_like(x) * 3
            return z, o, list(z.shape)
        """,
        (t(2, 1),),
    )
    c.add(
        "int_tensor_ops",
        """
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return x // 2, x % 3, x.bitwise_and(5)
        """,
        (ti(6, mod=11),),
    )
