"""Loss functions scripted models carry (detection heads compute their training losses in the
same forward): l1, mse, smooth_l1, huber, binary_cross_entropy (with and without logits),
nll_loss (1-d, 2-d and N-d targets) and cross_entropy (class indices, probabilities, label
smoothing), every reduction, with PyTorch's error messages."""

from typing import Optional

import torch
import torch.nn.functional as F

NONE, MEAN, SUM = 0, 1, 2


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def regression_cases(c):
    def l1(x, y, red: int):
        return torch._C._nn.l1_loss(x, y, red)

    def mse(x, y, red: int):
        return torch._C._nn.mse_loss(x, y, red)

    def smooth(x, y, red: int, beta: float):
        return torch._C._nn.smooth_l1_loss(x, y, red, beta)

    def huber(x, y, red: int, delta: float):
        return torch._C._nn.huber_loss(x, y, red, delta)

    x, y = r(3, 4), r(3, 4)
    for red, name in [(NONE, "none"), (MEAN, "mean"), (SUM, "sum")]:
        c.add(f"l1_{name}", l1, x, y, red)
        c.add(f"mse_{name}", mse, x, y, red)
        c.add(f"smooth_l1_{name}", smooth, x, y, red, 0.5)
        c.add(f"huber_{name}", huber, x, y, red, 0.7)
    c.add("l1_broadcast", l1, x, r(4), MEAN)
    c.add("mse_float64", mse, r(5, dtype=torch.float64), r(5, dtype=torch.float64), SUM)
    c.add("smooth_l1_beta0", smooth, x, y, MEAN, 0.0)
    c.add("smooth_l1_beta_error", smooth, x, y, MEAN, -1.0)
    c.add("huber_delta_error", huber, x, y, MEAN, 0.0)
    c.add("l1_empty_mean", l1, r(0), r(0), MEAN)

    def functional(x, y):
        return (F.l1_loss(x, y), F.mse_loss(x, y, reduction="sum"), F.smooth_l1_loss(x, y, beta=1.0 / 9),
                F.huber_loss(x, y, reduction="none"))

    c.add("regression_functional", functional, x, y, inline=True)


def bce_cases(c):
    def bce_logits(x, y, w: Optional[torch.Tensor], pw: Optional[torch.Tensor], red: int):
        return torch.binary_cross_entropy_with_logits(x, y, w, pw, red)

    def bce(x, y, w: Optional[torch.Tensor], red: int):
        return torch._C._nn.binary_cross_entropy(x, y, w, red)

    x = r(4, 3) * 3
    y = torch.rand(4, 3)
    for red, name in [(NONE, "none"), (MEAN, "mean"), (SUM, "sum")]:
        c.add(f"bce_logits_{name}", bce_logits, x, y, None, None, red)
        c.add(f"bce_{name}", bce, torch.rand(4, 3), y, None, red)
    c.add("bce_logits_weights", bce_logits, x, y, torch.rand(3), torch.rand(3) * 2, MEAN)
    c.add("bce_logits_extreme", bce_logits, torch.tensor([-100.0, 100.0, 0.0, 40.0]), torch.tensor([1.0, 0.0, 0.5, 1.0]), None, None, NONE)
    c.add("bce_weight", bce, torch.rand(4, 3), y, torch.rand(4, 3), SUM)
    c.add("bce_edges", bce, torch.tensor([0.0, 1.0, 0.5, 1e-30]), torch.tensor([1.0, 0.0, 1.0, 1.0]), None, NONE)
    c.add("bce_range_error", bce, torch.tensor([1.5, 0.5]), torch.tensor([1.0, 0.0]), None, MEAN)
    c.add("bce_shape_error", bce, torch.rand(4, 3), torch.rand(3, 4), None, MEAN)
    c.add("bce_logits_shape_error", bce_logits, x, torch.rand(3, 4), None, None, MEAN)

    def functional(x, y):
        return F.binary_cross_entropy_with_logits(x, y), F.binary_cross_entropy(torch.sigmoid(x), y, reduction="sum")

    c.add("bce_functional", functional, x, y, inline=True)


def nll_cases(c):
    def nll(x, t, w: Optional[torch.Tensor], red: int, ignore: int):
        return torch._C._nn.nll_loss_nd(x, t, w, red, ignore)

    def ce(x, t, w: Optional[torch.Tensor], red: int, ignore: int, smoothing: float):
        return torch._C._nn.cross_entropy_loss(x, t, w, red, ignore, smoothing)

    logp = torch.log_softmax(r(5, 4), 1)
    t = torch.tensor([0, 3, 1, 1, 2])
    for red, name in [(NONE, "none"), (MEAN, "mean"), (SUM, "sum")]:
        c.add(f"nll_{name}", nll, logp, t, None, red, -100)
        c.add(f"ce_{name}", ce, r(5, 4), t, None, red, -100, 0.0)
        c.add(f"ce_smooth_{name}", ce, r(5, 4), t, r(4).abs(), red, 1, 0.2)
    c.add("nll_weight_ignore", nll, logp, t, torch.rand(4), MEAN, 1)
    c.add("nll_1d", nll, torch.log_softmax(r(4), 0), torch.tensor(2), None, MEAN, -100)
    c.add("nll_2d", nll, torch.log_softmax(r(2, 3, 4, 5), 1), torch.randint(0, 3, (2, 4, 5)), torch.rand(3), MEAN, -100)
    c.add("nll_2d_none", nll, torch.log_softmax(r(2, 3, 4, 5), 1), torch.randint(0, 3, (2, 4, 5)), None, NONE, -100)
    c.add("nll_3d_sum", nll, torch.log_softmax(r(2, 3, 2, 2, 3), 1), torch.randint(0, 3, (2, 2, 2, 3)), None, SUM, -100)
    c.add("nll_all_ignored", nll, logp, torch.full((5,), 7), None, MEAN, 7)
    c.add("nll_target_error", nll, logp, torch.tensor([0, 4, 1, 1, 2]), None, MEAN, -100)
    c.add("nll_negative_target_error", nll, logp, torch.tensor([0, -1, 1, 1, 2]), None, MEAN, -100)
    c.add("nll_batch_error", nll, logp, torch.tensor([0, 1]), None, MEAN, -100)
    c.add("nll_weight_error", nll, logp, t, torch.rand(3), MEAN, -100)
    c.add("ce_weight", ce, r(5, 4), t, torch.rand(4), MEAN, -100, 0.0)
    c.add("ce_ignore", ce, r(5, 4), t, None, SUM, 3, 0.0)
    c.add("ce_probabilities", ce, r(5, 4), torch.softmax(r(5, 4), 1), None, MEAN, -100, 0.0)
    c.add("ce_probabilities_smooth", ce, r(5, 4), torch.softmax(r(5, 4), 1), torch.rand(4), SUM, -100, 0.1)
    c.add("ce_2d", ce, r(2, 3, 4, 4), torch.randint(0, 3, (2, 4, 4)), None, MEAN, -100, 0.0)
    c.add("ce_float64", ce, r(3, 4, dtype=torch.float64), torch.tensor([1, 0, 3]), None, MEAN, -100, 0.0)
    c.add("ce_smoothing_error", ce, r(5, 4), t, None, MEAN, -100, 1.5)
    c.add("ce_dtype_error", ce, r(5, 4), t.float(), None, MEAN, -100, 0.0)

    def functional(x, t):
        return F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="sum", label_smoothing=0.1), F.nll_loss(F.log_softmax(x, 1), t)

    c.add("ce_functional", functional, r(5, 4), t, inline=True)


def cases(c):
    regression_cases(c)
    bce_cases(c)
    nll_cases(c)
