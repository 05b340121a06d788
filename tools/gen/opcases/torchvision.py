"""torchvision's operators (torch.ops.torchvision.*, the optional operator library of Ember's
runtime): nms and the batched_nms paths, roi_align, roi_pool, ps_roi_align, ps_roi_pool and
deform_conv2d, checked against torchvision's CPU kernels, with their error messages."""

from typing import List, Optional, Tuple

import os
import re
import zipfile

import numpy as np
import torch
import torchvision  # noqa: F401  (registers torch.ops.torchvision)
from torchvision.ops import batched_nms, box_iou, roi_align, roi_pool

# torchvision's release build prefixes its TORCH_CHECK messages with the function and its
# build path (`nms_kernel, /__w/vision/.../nms_kernel.cpp:112, boxes and ...`); the cases
# keep the message itself.
_PREFIX = re.compile(r"^(RuntimeError: )?(\w+|operator\(\)), /\S+:\d+,( |$)")
# Graphs of torchvision's Python functions name its files; keep them relative to the package.
_VISION_DIR = os.path.dirname(os.path.abspath(torchvision.__file__))


def strip_prefixes(c):
    for name in c.names:
        ir = os.path.join(c.dir, name + ".ir")
        with open(ir) as f:
            text = f.read()
        with open(ir, "w") as f:
            f.write(text.replace(_VISION_DIR + os.sep, "torchvision/"))
        path = os.path.join(c.dir, name + ".npz")
        with zipfile.ZipFile(path) as z:
            if "error.npy" not in z.namelist():
                continue
        arrays = dict(np.load(path))
        text = bytes(arrays["error"]).decode()
        arrays["error"] = np.frombuffer(_PREFIX.sub("", text).encode(), dtype=np.uint8)
        from opcases.common import _write_npz

        _write_npz(path, arrays)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def boxes(n, size=20.0, dtype=torch.float32, seed_offset=0):
    """`n` valid boxes (x1 < x2, y1 < y2) inside [0, size]."""
    xy = torch.rand(n, 2) * size * 0.7
    wh = torch.rand(n, 2) * size * 0.5 + 0.5
    return torch.cat([xy, xy + wh], 1).to(dtype)


def rois(k, batch, size=20.0, dtype=torch.float32):
    """`k` regions `[batch_index, x1, y1, x2, y2]`."""
    idx = torch.randint(0, batch, (k, 1)).to(dtype)
    return torch.cat([idx, boxes(k, size, dtype)], 1)


def nms_cases(c):
    def nms(b, s, t: float):
        return torch.ops.torchvision.nms(b, s, t)

    def batched(b, s, idx, t: float):
        return batched_nms(b, s, idx, t)

    def iou(a, b):
        return box_iou(a, b)

    def iou_rotated(a, b):
        return torch.ops.torchvision.box_iou_rotated(a, b)

    def rotated(n, dtype=torch.float32):
        centre = torch.rand(n, 2) * 10
        size = torch.rand(n, 2) * 6 + 0.5
        angle = torch.rand(n, 1) * 360 - 180
        return torch.cat([centre, size, angle], 1).to(dtype)

    b = boxes(40)
    c.add("nms", nms, b, torch.rand(40), 0.5)
    c.add("nms_strict", nms, b, torch.rand(40), 0.1)
    c.add("nms_loose", nms, b, torch.rand(40), 0.9)
    c.add("nms_ties", nms, boxes(12), torch.tensor([0.5, 0.5, 0.2, 0.9, 0.5, 0.2, 0.9, 0.1, 0.5, 0.5, 0.3, 0.3]), 0.3)
    c.add("nms_duplicates", nms, torch.tensor([[0.0, 0, 10, 10]] * 4 + [[1.0, 1, 11, 11]]), torch.tensor([0.1, 0.4, 0.4, 0.2, 0.3]), 0.5)
    c.add("nms_degenerate", nms, torch.tensor([[0.0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 2, 2]]), torch.tensor([0.3, 0.2, 0.1]), 0.5)
    c.add("nms_float64", nms, boxes(30, dtype=torch.float64), torch.rand(30, dtype=torch.float64), 0.4)
    c.add("nms_empty", nms, torch.zeros(0, 4), torch.zeros(0), 0.5)
    c.add("nms_negative_threshold", nms, b, torch.rand(40), -0.5)
    c.add("nms_large", nms, boxes(2000, size=200.0), torch.rand(2000), 0.6)
    c.add("nms_rank_error", nms, torch.zeros(4), torch.zeros(4), 0.5)
    c.add("nms_width_error", nms, torch.zeros(4, 5), torch.zeros(4), 0.5)
    c.add("nms_scores_error", nms, torch.zeros(4, 4), torch.zeros(4, 1), 0.5)
    c.add("nms_count_error", nms, torch.zeros(4, 4), torch.zeros(3), 0.5)
    c.add("nms_dtype_error", nms, torch.zeros(4, 4), torch.zeros(4, dtype=torch.float64), 0.5)
    c.add("nms_int_error", nms, torch.zeros(4, 4, dtype=torch.int64), torch.zeros(4, dtype=torch.int64), 0.5)
    c.add("batched_nms", batched, b, torch.rand(40), torch.randint(0, 3, (40,)), 0.5, inline=True)
    c.add("batched_nms_large", batched, boxes(3000, size=300.0), torch.rand(3000), torch.randint(0, 5, (3000,)), 0.5, inline=True)
    c.add("box_iou", iou, boxes(5), boxes(7), inline=True)
    c.add("box_iou_rotated", iou_rotated, rotated(8), rotated(9))
    c.add("box_iou_rotated_axis_aligned", iou_rotated, torch.tensor([[5.0, 5, 4, 2, 0], [5, 5, 4, 2, 90], [6, 5, 4, 2, 0], [0, 0, 0, 2, 0]]), torch.tensor([[5.0, 5, 4, 2, 0], [5, 5, 2, 4, 0], [9, 9, 1, 1, 45]]))
    c.add("box_iou_rotated_float64", iou_rotated, rotated(6, torch.float64), rotated(5, torch.float64))
    c.add("box_iou_rotated_empty", iou_rotated, torch.zeros(0, 5), rotated(3))


def roi_align_cases(c):
    def align(x, rois, scale: float, ph: int, pw: int, sampling: int, aligned: bool):
        return torch.ops.torchvision.roi_align(x, rois, scale, ph, pw, sampling, aligned)

    def align_fn(x, boxes: List[torch.Tensor]):
        return roi_align(x, boxes, [3, 2], 0.5, 2, True)

    x = r(2, 3, 10, 12)
    k = rois(6, 2)
    for aligned in (False, True):
        tag = "_aligned" if aligned else ""
        c.add(f"roi_align{tag}", align, x, k, 0.5, 3, 3, 2, aligned)
        c.add(f"roi_align_adaptive{tag}", align, x, k, 0.5, 2, 4, 0, aligned)
        c.add(f"roi_align_scale1{tag}", align, x, rois(5, 2, size=12.0), 1.0, 4, 3, 1, aligned)
    c.add("roi_align_outside", align, x, torch.tensor([[0.0, -30, -30, -20, -20], [1.0, 50, 50, 60, 70], [0.0, -5, -5, 30, 30]]), 1.0, 2, 2, 2, False)
    c.add("roi_align_tiny", align, x, torch.tensor([[1.0, 3, 3, 3, 3], [0.0, 4, 4, 4.2, 4.1]]), 1.0, 2, 2, 0, True)
    c.add("roi_align_float64", align, r(1, 2, 6, 7, dtype=torch.float64), rois(3, 1, size=7.0, dtype=torch.float64), 1.0, 2, 2, 2, True)
    c.add("roi_align_noncontig", align, r(2, 10, 12, 3).permute(0, 3, 1, 2), k, 0.5, 2, 2, 2, False)
    c.add("roi_align_no_rois", align, x, torch.zeros(0, 5), 0.5, 2, 2, 2, False)
    c.add("roi_align_large", align, r(2, 64, 40, 50), rois(100, 2, size=80.0), 0.5, 7, 7, 2, False)
    c.add("roi_align_shape_error", align, x, torch.zeros(3, 4), 0.5, 2, 2, 2, False)
    c.add("roi_align_dtype_error", align, x, k.double(), 0.5, 2, 2, 2, False)
    c.add("roi_align_functional", align_fn, x, [boxes(3), boxes(2)], inline=True)


def roi_pool_cases(c):
    def pool(x, rois, scale: float, ph: int, pw: int):
        return torch.ops.torchvision.roi_pool(x, rois, scale, ph, pw)

    def pool_fn(x, rois):
        return roi_pool(x, rois, 3, 0.5)

    x = r(2, 3, 10, 12)
    k = rois(6, 2)
    c.add("roi_pool", pool, x, k, 0.5, 3, 3)
    c.add("roi_pool_scale1", pool, x, rois(5, 2, size=12.0), 1.0, 2, 4)
    c.add("roi_pool_rounding", pool, x, torch.tensor([[0.0, 2.5, 3.5, 6.5, 7.49], [1.0, 0.49, 0.5, 1.5, 9.5]]), 1.0, 3, 2)
    c.add("roi_pool_outside", pool, x, torch.tensor([[0.0, -30, -30, -20, -20], [1.0, 50, 50, 60, 70]]), 1.0, 2, 2)
    c.add("roi_pool_float64", pool, r(1, 2, 6, 7, dtype=torch.float64), rois(3, 1, size=7.0, dtype=torch.float64), 1.0, 2, 2)
    c.add("roi_pool_no_rois", pool, x, torch.zeros(0, 5), 0.5, 2, 2)
    c.add("roi_pool_shape_error", pool, x, torch.zeros(3, 6), 0.5, 2, 2)
    c.add("roi_pool_functional", pool_fn, x, k, inline=True)


def ps_cases(c):
    def ps_align(x, rois, scale: float, ph: int, pw: int, sampling: int):
        return torch.ops.torchvision.ps_roi_align(x, rois, scale, ph, pw, sampling)

    def ps_pool(x, rois, scale: float, ph: int, pw: int):
        return torch.ops.torchvision.ps_roi_pool(x, rois, scale, ph, pw)

    x = r(2, 18, 10, 12)
    k = rois(6, 2)
    c.add("ps_roi_align", ps_align, x, k, 0.5, 3, 3, 2)
    c.add("ps_roi_align_adaptive", ps_align, r(2, 8, 10, 12), k, 0.5, 2, 2, 0)
    c.add("ps_roi_align_rect", ps_align, r(1, 12, 9, 9), rois(4, 1, size=9.0), 1.0, 2, 3, 1)
    c.add("ps_roi_align_float64", ps_align, r(1, 8, 6, 7, dtype=torch.float64), rois(3, 1, size=7.0, dtype=torch.float64), 1.0, 2, 2, 2)
    c.add("ps_roi_align_outside", ps_align, r(1, 4, 6, 6), torch.tensor([[0.0, -30, -30, -20, -20], [0.0, 2, 2, 50, 50]]), 1.0, 2, 2, 2)
    c.add("ps_roi_align_channels_error", ps_align, r(1, 5, 6, 6), rois(2, 1), 1.0, 2, 2, 2)
    c.add("ps_roi_pool", ps_pool, x, k, 0.5, 3, 3)
    c.add("ps_roi_pool_rect", ps_pool, r(1, 12, 9, 9), rois(4, 1, size=9.0), 1.0, 2, 3)
    c.add("ps_roi_pool_float64", ps_pool, r(1, 8, 6, 7, dtype=torch.float64), rois(3, 1, size=7.0, dtype=torch.float64), 1.0, 2, 2)
    c.add("ps_roi_pool_outside", ps_pool, r(1, 4, 6, 6), torch.tensor([[0.0, -30, -30, -20, -20], [0.0, 2, 2, 50, 50]]), 1.0, 2, 2)
    c.add("ps_roi_pool_channels_error", ps_pool, r(1, 5, 6, 6), rois(2, 1), 1.0, 2, 2)


def deform_cases(c):
    def deform(x, w, off, mask, b, stride: List[int], pad: List[int], dil: List[int], groups: int, offset_groups: int, use_mask: bool):
        return torch.ops.torchvision.deform_conv2d(x, w, off, mask, b, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], groups, offset_groups, use_mask)

    def deform_fn(x, off, w, b, mask):
        return torchvision.ops.deform_conv2d(x, off, w, b, (1, 1), (1, 1), (1, 1), mask)

    def offsets(b, groups, kh, kw, oh, ow, spread=2.0):
        return torch.randn(b, groups * 2 * kh * kw, oh, ow) * spread

    def mask(b, groups, kh, kw, oh, ow):
        return torch.rand(b, groups * kh * kw, oh, ow)

    def no_mask(b):
        # Not read without use_mask, but its batch size is still checked.
        return torch.zeros(b, 1, 1, 1)

    SUM = dict(rtol=1e-4, atol=1e-5)
    x = r(2, 4, 7, 8)
    w = r(6, 4, 3, 3)
    c.add("deform_conv2d", deform, x, w, offsets(2, 1, 3, 3, 5, 6), no_mask(2), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False, **SUM)
    c.add("deform_conv2d_mask", deform, x, w, offsets(2, 1, 3, 3, 7, 8), mask(2, 1, 3, 3, 7, 8), r(6), [1, 1], [1, 1], [1, 1], 1, 1, True, **SUM)
    c.add("deform_conv2d_zero_offset", deform, x, w, torch.zeros(2, 18, 7, 8), no_mask(2), torch.zeros(6), [1, 1], [1, 1], [1, 1], 1, 1, False, **SUM)
    c.add("deform_conv2d_stride_dilation", deform, r(1, 4, 11, 10), r(4, 4, 3, 2), offsets(1, 2, 3, 2, 5, 5), mask(1, 2, 3, 2, 5, 5), r(4), [2, 3], [1, 2], [2, 1], 1, 2, True, **SUM)
    c.add("deform_conv2d_groups", deform, r(1, 4, 6, 6), r(6, 2, 2, 2), offsets(1, 4, 2, 2, 5, 5), mask(1, 4, 2, 2, 5, 5), torch.zeros(6), [1, 1], [0, 0], [1, 1], 2, 4, True, **SUM)
    c.add("deform_conv2d_float64", deform, r(1, 2, 5, 5, dtype=torch.float64), r(3, 2, 3, 3, dtype=torch.float64), offsets(1, 1, 3, 3, 3, 3).double(), no_mask(1).double(), r(3, dtype=torch.float64), [1, 1], [0, 0], [1, 1], 1, 1, False)
    c.add("deform_conv2d_far", deform, r(1, 2, 5, 5), r(3, 2, 3, 3), offsets(1, 1, 3, 3, 3, 3, spread=8.0), no_mask(1), r(3), [1, 1], [0, 0], [1, 1], 1, 1, False, **SUM)
    c.add("deform_conv2d_functional", deform_fn, x, offsets(2, 1, 3, 3, 7, 8), w, r(6), mask(2, 1, 3, 3, 7, 8), inline=True, **SUM)
    c.add("deform_conv2d_offset_error", deform, x, w, torch.zeros(2, 10, 5, 6), no_mask(2), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False)
    c.add("deform_conv2d_dims_error", deform, x, w, torch.zeros(2, 18, 4, 6), no_mask(2), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False)
    c.add("deform_conv2d_mask_error", deform, x, w, torch.zeros(2, 18, 5, 6), torch.zeros(2, 8, 5, 6), r(6), [1, 1], [0, 0], [1, 1], 1, 1, True)
    c.add("deform_conv2d_channels_error", deform, x, r(6, 3, 3, 3), torch.zeros(2, 18, 5, 6), no_mask(2), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False)
    c.add("deform_conv2d_batch_error", deform, x, w, torch.zeros(1, 18, 5, 6), no_mask(2), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False)
    c.add("deform_conv2d_mask_batch_error", deform, x, w, torch.zeros(2, 18, 5, 6), torch.zeros(0), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False)
    c.add("deform_conv2d_small_error", deform, r(1, 4, 2, 2), w, torch.zeros(1, 18, 0, 0), no_mask(1), r(6), [1, 1], [0, 0], [1, 1], 1, 1, False)


def cases(c):
    nms_cases(c)
    roi_align_cases(c)
    roi_pool_cases(c)
    ps_cases(c)
    deform_cases(c)
    strip_prefixes(c)
