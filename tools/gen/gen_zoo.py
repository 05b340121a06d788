#!/usr/bin/env python3
"""The model zoo: real models from torchvision, timm, Hugging Face transformers and
torchaudio-style speech models (tools/gen/zoo_audio.py), each scripted and traced with random
weights (fixed seeds) on small inputs, saved with torch.jit.save and run after torch.jit.load
— the module Ember loads. Run with the torch venv:

    ~/.cache/torch-venv/bin/python tools/gen/gen_zoo.py [--cache DIR] [--only NAME,...]

It writes
  DIR/NAME.MODE.pt                 every archive (DIR defaults to target/zoo; not committed)
  test/zoo/models/NAME.MODE.pt     the archives of the CI tier (small configs of the same
                                   model classes), committed
  test/zoo/expected/NAME.MODE.npz  inputs (input_0, ...) and PyTorch's outputs (output_0, ...
                                   depth-first, dict values in order), committed
  test/zoo/MANIFEST.json           per model and mode: family, library, tier, the archive's
                                   digest (archive_digest) and size, how its arguments
                                   are built from the inputs, the output's structure, and
                                   why PyTorch itself could not script or trace it (those
                                   have no archive)

Tiers: "ci" archives are committed and run by `cargo test` (compiler/tests/zoo.rs); "large"
ones (full-size configs) live in DIR only, written by test/setup/zoo_models.sh, and run when
present. Detection models return (losses, detections) when scripted; their outputs are
compared with ties in scores handled (kind "detection").
"""
import argparse
import hashlib
import io
import json
import multiprocessing
import os
import shutil
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

# The archives' code lists a class's Final constants in the order of a Python set, which
# follows the string hash seed: without a fixed seed no two runs write the same bytes, and
# test/setup/zoo_models.sh could not check them against the manifest's digest.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np
import torch
import torch.nn as nn

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_audio  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
ZOO = os.path.join(ROOT, "test", "zoo")


def seed(n: int = 0):
    torch.manual_seed(n)
    np.random.seed(n)


# --------------------------------------------------------------------------------------------
# Model builders. Each returns (module, inputs, args) where args says how forward's arguments
# are made from the inputs: "T" the next input tensor, "[T]" a list holding the next one.


def image(size=64, batch=1):
    return torch.randn(batch, 3, size, size)


def classification(build: Callable[[], nn.Module], size=64):
    def make():
        return build(), (image(size),), ["T"]
    return make


def tv():
    import torchvision
    return torchvision


def tv_tiny_mobilenet_v3():
    from torchvision.models import mobilenet_v3_small
    return mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=10)


def tv_tiny_efficientnet():
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    return EfficientNet(setting, 0.2, last_channel=last, num_classes=10)


def tv_tiny_efficientnet_v2():
    from torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
    setting = [
        FusedMBConvConfig(1, 3, 1, 8, 8, 1),
        FusedMBConvConfig(4, 3, 2, 8, 16, 1),
        MBConvConfig(4, 3, 2, 16, 24, 1, width_mult=1.0, depth_mult=1.0),
    ]
    return EfficientNet(setting, 0.2, last_channel=64, num_classes=10)


def tv_tiny_regnet():
    from torchvision.models.regnet import BlockParams, RegNet
    params = BlockParams.from_init_params(depth=4, w_0=8, w_a=8.0, w_m=2.0, group_width=8)
    return RegNet(params, num_classes=10, stem_width=8)


def tv_tiny_densenet():
    from torchvision.models import DenseNet
    return DenseNet(growth_rate=8, block_config=(2, 2, 2, 2), num_init_features=16, bn_size=2,
                    num_classes=10)


def tv_tiny_vit():
    from torchvision.models import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                             hidden_dim=32, mlp_dim=64, num_classes=10)


def tv_tiny_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    return ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], num_classes=10)


def tv_tiny_swin():
    from torchvision.models import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1], num_heads=[1, 2],
                           window_size=[4, 4], num_classes=10)


def tv_tiny_shufflenet():
    from torchvision.models import ShuffleNetV2
    return ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)


def tv_tiny_squeezenet():
    # torchvision's SqueezeNet 1.1 layer for layer with an eighth of its channels: the class
    # fixes its widths, so the tiny config copies its features list.
    from torchvision.models.squeezenet import Fire, SqueezeNet
    m = SqueezeNet("1_1", num_classes=10)
    m.features = nn.Sequential(
        nn.Conv2d(3, 8, kernel_size=3, stride=2), nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(8, 2, 8, 8), Fire(16, 2, 8, 8),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(16, 4, 16, 16), nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(32, 8, 32, 32),
    )
    m.classifier = nn.Sequential(nn.Dropout(p=0.5), nn.Conv2d(64, 10, kernel_size=1),
                                 nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1)))
    return m


def segmentation_tiny(kind: str):
    """torchvision's builders on a width-0.25 MobileNetV3; DeepLabV3's head (ASPP fixed at 256
    channels by its builder) rebuilt with 16."""
    def make():
        from torchvision.models import mobilenet_v3_large
        from torchvision.models.segmentation.deeplabv3 import ASPP, _deeplabv3_mobilenetv3
        from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3
        backbone = mobilenet_v3_large(weights=None, width_mult=0.25, dilated=True)
        if kind == "lraspp":
            m = _lraspp_mobilenetv3(backbone, 4)
        else:
            m = _deeplabv3_mobilenetv3(backbone, 4, aux=True)
            head = m.classifier
            in_channels = head[0].convs[0][0].in_channels
            head[0] = ASPP(in_channels, [12, 24, 36], 16)
            head[1] = nn.Conv2d(16, 16, 3, padding=1, bias=False)
            head[2] = nn.BatchNorm2d(16)
            head[4] = nn.Conv2d(16, 4, 1)
        return m, (image(64),), ["T"]
    return make


def segmentation_full(name: str):
    def make():
        from torchvision.models import segmentation
        kwargs = dict(weights=None, weights_backbone=None, num_classes=4)
        if name != "lraspp_mobilenet_v3_large":
            kwargs["aux_loss"] = True
        return getattr(segmentation, name)(**kwargs), (image(64),), ["T"]
    return make


def tiny_fpn_backbone(extra_blocks=None, returned=(3, 4)):
    """torchvision's BackboneWithFPN over a width-0.25 MobileNetV3 (its builders fix 256 FPN
    channels), 16 channels, as _mobilenet_extractor builds it."""
    from torchvision.models import mobilenet_v3_large
    from torchvision.models.detection.backbone_utils import BackboneWithFPN
    features = mobilenet_v3_large(weights=None, width_mult=0.25).features
    stage = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]
    indices = [stage[i] for i in returned]
    return_layers = {f"{v}": str(k) for k, v in enumerate(indices)}
    in_channels = [features[i].out_channels for i in indices]
    return BackboneWithFPN(features, return_layers, in_channels, 16, extra_blocks=extra_blocks)


def spread_scores(m: nn.Module):
    """Random normalization statistics and livelier heads for a detection model whose fresh
    weights score every candidate alike (every anchor 1/3, every box 0.2066): which of the tied
    candidates survive a top-k then hangs on the last bit of each score, so no two libraries
    keep the same ones. Spread apart, the scores leave one right answer."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.weight.uniform_(0.5, 1.5, generator=g)
                mod.bias.uniform_(-0.5, 0.5, generator=g)
                mod.running_mean.uniform_(-0.2, 0.2, generator=g)
                mod.running_var.uniform_(0.5, 1.5, generator=g)
        for mod in getattr(m, "head", nn.Module()).modules():
            if isinstance(mod, nn.Conv2d):
                mod.weight.normal_(0, 0.3, generator=g)
        for mod in getattr(m, "roi_heads", nn.Module()).modules():
            if isinstance(mod, nn.Linear):
                mod.weight.normal_(0, 0.02, generator=g)
                mod.bias.uniform_(-0.1, 0.1, generator=g)
    return m


def detection_tiny(kind: str):
    """torchvision's detection classes with small heads over a width-0.25 MobileNetV3 and
    64x64 images; scores kept down to 0 so that every image has detections."""
    def make():
        from functools import partial
        from torchvision.models import mobilenet_v3_large
        from torchvision.models.detection import FasterRCNN, MaskRCNN, RetinaNet
        from torchvision.models.detection import _utils as det_utils
        from torchvision.models.detection.anchor_utils import AnchorGenerator, DefaultBoxGenerator
        from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
        from torchvision.models.detection.mask_rcnn import MaskRCNNHeads, MaskRCNNPredictor
        from torchvision.models.detection.ssd import SSD
        from torchvision.models.detection.ssdlite import SSDLiteFeatureExtractorMobileNet, SSDLiteHead
        from torchvision.ops.feature_pyramid_network import LastLevelP6P7
        common = dict(min_size=64, max_size=64, box_detections_per_img=10, box_score_thresh=0.0)
        if kind == "ssdlite":
            norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
            backbone = mobilenet_v3_large(weights=None, width_mult=0.25, norm_layer=norm,
                                          reduced_tail=True)
            # ssdlite's _mobilenet_extractor, with its width_mult for the extra blocks.
            features = backbone.features
            stages = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)]
            backbone = SSDLiteFeatureExtractorMobileNet(features, stages[-1], norm, width_mult=0.25)
            size = (64, 64)
            anchors = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
            out_channels = det_utils.retrieve_out_channels(backbone, size)
            m = spread_scores(SSD(backbone, anchors, size, 3,
                    head=SSDLiteHead(out_channels, anchors.num_anchors_per_location(), 3, norm),
                    score_thresh=0.0, detections_per_img=10, topk_candidates=50,
                    image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5]))
        else:
            if kind == "retinanet":
                backbone = tiny_fpn_backbone(LastLevelP6P7(16, 16))
                anchor_sizes = tuple((x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3)))
                                     for x in [16, 32, 64, 128])
                anchors = AnchorGenerator(anchor_sizes, ((0.5, 1.0, 2.0),) * len(anchor_sizes))
                m = RetinaNet(backbone, 3, anchor_generator=anchors, min_size=64, max_size=64,
                              detections_per_img=10, score_thresh=0.0, topk_candidates=50)
            else:
                backbone = tiny_fpn_backbone()
                anchors = AnchorGenerator(((16, 32, 64),) * 3, ((0.5, 1.0, 2.0),) * 3)
                heads = dict(box_head=TwoMLPHead(16 * 7 * 7, 32),
                             box_predictor=FastRCNNPredictor(32, 3))
                if kind == "maskrcnn":
                    heads.update(mask_head=MaskRCNNHeads(16, [16, 16], 1),
                                 mask_predictor=MaskRCNNPredictor(16, 16, 3))
                cls = MaskRCNN if kind == "maskrcnn" else FasterRCNN
                m = cls(backbone, None, rpn_anchor_generator=anchors, rpn_pre_nms_top_n_test=50,
                        rpn_post_nms_top_n_test=20, **heads, **common)
        return m, (torch.rand(3, 64, 64),), ["[T]"]
    return make


def detection_full(name: str, size=128):
    def make():
        from torchvision.models import detection
        kwargs = dict(weights=None, weights_backbone=None, num_classes=5)
        if name.startswith("ssd"):
            kwargs.update(score_thresh=0.0, detections_per_img=20)
        elif name.startswith("retinanet"):
            kwargs.update(score_thresh=0.0, detections_per_img=20, min_size=size, max_size=size)
        else:
            kwargs.update(box_score_thresh=0.0, box_detections_per_img=20, min_size=size,
                          max_size=size)
        m = getattr(detection, name)(**kwargs)
        if name == "fasterrcnn_mobilenet_v3_large_320_fpn":
            spread_scores(m)
        return m, (torch.rand(3, size, size),), ["[T]"]
    return make


def video(name: str):
    def make():
        from torchvision.models import video as v
        m = getattr(v, name)(weights=None, num_classes=10)
        return m, (torch.randn(1, 3, 4, 32, 32),), ["T"]
    return make


def timm_model(name: str, size=64, **kwargs):
    def make():
        import timm
        m = timm.create_model(name, pretrained=False, num_classes=10, **kwargs)
        return m, (image(size),), ["T"]
    return make


def hf_text(kind: str, tiny: bool):
    """transformers models built from a config with random weights (no downloads), traced with
    torchscript=True (tuple outputs) on 8 token ids."""
    def make():
        import transformers as hf
        small = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, vocab_size=100, max_position_embeddings=64)
        ids = torch.randint(0, 100, (1, 8))
        if kind == "bert":
            cfg = hf.BertConfig(**small) if tiny else hf.BertConfig()
            cfg.torchscript = True
            m = hf.BertModel(cfg)
            return m, (ids, torch.ones(1, 8, dtype=torch.int64)), ["T", "T"]
        if kind == "gpt2":
            cfg = (hf.GPT2Config(n_embd=32, n_layer=2, n_head=2, vocab_size=100, n_positions=64)
                   if tiny else hf.GPT2Config())
            cfg.torchscript = True
            cfg.use_cache = False
            return hf.GPT2Model(cfg), (ids,), ["T"]
        if kind == "t5":
            cfg = (hf.T5Config(d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
                               vocab_size=100) if tiny else hf.T5Config())
            cfg.torchscript = True
            cfg.use_cache = False
            dec = torch.randint(0, 100, (1, 4))
            # forward(input_ids, attention_mask, decoder_input_ids, ...)
            mask = torch.ones(1, 8, dtype=torch.int64)
            return hf.T5Model(cfg), (ids, mask, dec), ["T", "T", "T"]
        raise ValueError(kind)
    return make


def hf_speech(kind: str, tiny: bool):
    def make():
        import transformers as hf
        small = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                     conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                     num_conv_pos_embedding_groups=4)
        wave = torch.randn(1, 1600)
        if kind == "wav2vec2":
            cfg = hf.Wav2Vec2Config(**small) if tiny else hf.Wav2Vec2Config()
            m = hf.Wav2Vec2Model(cfg)
        else:
            cfg = (hf.Wav2Vec2ConformerConfig(**small, conv_depthwise_kernel_size=7,
                                              max_source_positions=64)
                   if tiny else hf.Wav2Vec2ConformerConfig())
            m = hf.Wav2Vec2ConformerModel(cfg)
        cfg.torchscript = True
        return m, (wave,), ["T"]
    return make


def audio_conformer(tiny: bool):
    def make():
        dims = (16, 2, 32, 2, 7) if tiny else (144, 4, 576, 16, 31)
        m = zoo_audio.Conformer(input_dim=dims[0], num_heads=dims[1], ffn_dim=dims[2],
                                num_layers=dims[3], depthwise_conv_kernel_size=dims[4])
        t = 20
        x = torch.randn(2, t, dims[0])
        lengths = torch.tensor([t, t - 5])
        return m, (x, lengths), ["T", "T"]
    return make


def audio_wav2vec2(tiny: bool):
    def make():
        if tiny:
            conv = [(16, 10, 5), (16, 3, 2), (16, 3, 2)]
            m = zoo_audio.wav2vec2_model(conv, 32, 2, 2, 64, 16, 4, False, 10)
        else:
            conv = [(512, 10, 5)] + [(512, 3, 2)] * 4 + [(512, 2, 2)] * 2
            m = zoo_audio.wav2vec2_model(conv, 768, 12, 12, 3072, 128, 16, False, 32)
        wave = torch.randn(2, 1600)
        lengths = torch.tensor([1600, 1200])
        return m, (wave, lengths), ["T", "T"]
    return make


# name -> (family, library, tier, builder, modes)
MODELS: Dict[str, Tuple[str, str, str, Callable, Tuple[str, ...]]] = {}


def add(name, family, library, tier, builder, modes=("script", "trace")):
    MODELS[name] = (family, library, tier, builder, modes)


def register():
    both = ("script", "trace")
    # Classification, CI tier: small configs of torchvision's and timm's model classes.
    for name, build in [
        ("tv_mobilenet_v3_tiny", tv_tiny_mobilenet_v3),
        ("tv_efficientnet_tiny", tv_tiny_efficientnet),
        ("tv_efficientnet_v2_tiny", tv_tiny_efficientnet_v2),
        ("tv_regnet_tiny", tv_tiny_regnet),
        ("tv_densenet_tiny", tv_tiny_densenet),
        ("tv_convnext_tiny", tv_tiny_convnext),
        ("tv_swin_tiny", tv_tiny_swin),
        ("tv_shufflenet_tiny", tv_tiny_shufflenet),
        ("tv_squeezenet_tiny", tv_tiny_squeezenet),
    ]:
        add(name, "classification", "torchvision", "ci", classification(build))
    add("tv_vit_tiny", "classification", "torchvision", "ci", classification(tv_tiny_vit, 32))
    add("timm_vit_tiny", "classification", "timm", "ci",
        timm_model("vit_tiny_patch16_224", 32, img_size=32, patch_size=8, embed_dim=32, depth=2,
                   num_heads=2))
    add("timm_convnext_tiny", "classification", "timm", "ci",
        timm_model("convnext_atto", 64, dims=(8, 16, 32, 64), depths=(1, 1, 1, 1)))
    add("timm_mobilenetv3_small_050", "classification", "timm", "large",
        timm_model("mobilenetv3_small_050", 64))
    # Classification, large tier: the full-size models.
    for name in ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0",
                 "regnet_y_400mf", "squeezenet1_1", "densenet121", "shufflenet_v2_x1_0",
                 "mnasnet1_0", "googlenet", "convnext_tiny", "swin_t", "alexnet"]:
        def build(name=name):
            kwargs = {"weights": None}
            if name == "googlenet":
                kwargs.update(aux_logits=False, init_weights=True)
            return getattr(tv().models, name)(**kwargs)
        add(name, "classification", "torchvision", "large", classification(build))
    add("vit_b_16", "classification", "torchvision", "large",
        classification(lambda: tv().models.vit_b_16(weights=None, image_size=64), 64))
    for name in ["resnet18", "efficientnet_b0", "convnext_atto", "regnetx_002", "ghostnet_050",
                 "lcnet_050", "mobilevit_xxs", "edgenext_xx_small", "efficientvit_b0"]:
        add(f"timm_{name}", "classification", "timm", "large", timm_model(name, 64))
    add("timm_vit_tiny_patch16", "classification", "timm", "large",
        timm_model("vit_tiny_patch16_224", 64, img_size=64))
    add("timm_deit_tiny_patch16", "classification", "timm", "large",
        timm_model("deit_tiny_patch16_224", 64, img_size=64))
    # Segmentation.
    add("lraspp_tiny", "segmentation", "torchvision", "ci", segmentation_tiny("lraspp"))
    add("deeplabv3_tiny", "segmentation", "torchvision", "ci", segmentation_tiny("deeplabv3"))
    for name in ["deeplabv3_mobilenet_v3_large", "deeplabv3_resnet50", "fcn_resnet50",
                 "lraspp_mobilenet_v3_large"]:
        add(name, "segmentation", "torchvision", "large", segmentation_full(name))
    # Detection: scripted (torchvision's detection models do not trace).
    for kind in ["fasterrcnn", "maskrcnn", "retinanet", "ssdlite"]:
        add(f"{kind}_tiny", "detection", "torchvision", "ci", detection_tiny(kind), ("script",))
    for name in ["fasterrcnn_mobilenet_v3_large_320_fpn", "fasterrcnn_resnet50_fpn",
                 "maskrcnn_resnet50_fpn", "retinanet_resnet50_fpn", "ssdlite320_mobilenet_v3_large"]:
        add(name, "detection", "torchvision", "large", detection_full(name), ("script",))
    # Video.
    for name in ["r3d_18", "mc3_18", "r2plus1d_18"]:
        add(name, "video", "torchvision", "large", video(name))
    # Speech.
    add("conformer_tiny", "speech", "torchaudio-style", "ci", audio_conformer(True))
    add("wav2vec2_tiny", "speech", "torchaudio-style", "ci", audio_wav2vec2(True))
    add("conformer", "speech", "torchaudio-style", "large", audio_conformer(False))
    add("wav2vec2_base", "speech", "torchaudio-style", "large", audio_wav2vec2(False))
    add("hf_wav2vec2_tiny", "speech", "transformers", "ci", hf_speech("wav2vec2", True), ("trace",))
    add("hf_wav2vec2_conformer_tiny", "speech", "transformers", "ci",
        hf_speech("conformer", True), ("trace",))
    add("hf_wav2vec2_base", "speech", "transformers", "large", hf_speech("wav2vec2", False),
        ("trace",))
    # Text: transformers, traced.
    for kind in ["bert", "gpt2", "t5"]:
        add(f"hf_{kind}_tiny", "text", "transformers", "ci", hf_text(kind, True), ("trace",))
    add("hf_bert_base", "text", "transformers", "large", hf_text("bert", False), ("trace",))
    add("hf_gpt2", "text", "transformers", "large", hf_text("gpt2", False), ("trace",))
    add("hf_t5_small", "text", "transformers", "large", hf_text("t5", False), ("trace",))


# --------------------------------------------------------------------------------------------


def flatten(v, out: List[torch.Tensor]):
    """Tensors of an output, depth-first; dict values in order (keys go to the structure)."""
    if isinstance(v, torch.Tensor):
        out.append(v)
    elif isinstance(v, (tuple, list)):
        for x in v:
            flatten(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            flatten(x, out)
    elif isinstance(v, (int, float, bool)):
        out.append(torch.tensor(v))
    elif v is None:
        pass
    else:
        raise TypeError(f"output of type {type(v).__name__}")


def structure(v) -> str:
    """The output's shape of containers: T a tensor, (..) a tuple, [..] a list, {k: ..} a dict."""
    if isinstance(v, torch.Tensor):
        return "T"
    if isinstance(v, tuple):
        return "(" + ", ".join(structure(x) for x in v) + ")"
    if isinstance(v, list):
        return "[" + ", ".join(structure(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {structure(x)}" for k, x in v.items()) + "}"
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    raise TypeError(type(v).__name__)


def call_args(inputs, spec):
    args, it = [], iter(inputs)
    for s in spec:
        args.append(next(it) if s == "T" else [next(it)])
    return args


def make_archive(name: str, mode: str, builder) -> Tuple[bytes, tuple, list]:
    seed(0)
    model, inputs, spec = builder()
    model.eval()
    args = call_args(inputs, spec)
    with torch.no_grad():
        if mode == "script":
            m = torch.jit.script(model)
        else:
            m = torch.jit.trace(model, tuple(args), strict=False, check_trace=False)
    buf = io.BytesIO()
    torch.jit.save(m, buf)
    return buf.getvalue(), inputs, spec


def _archive_worker(name: str, mode: str) -> Tuple[bytes, tuple, list]:
    register()
    torch.set_num_threads(1)
    return make_archive(name, mode, MODELS[name][3])


def fresh_archive(name: str, mode: str) -> Tuple[bytes, tuple, list]:
    """make_archive in a process of its own: TorchScript numbers the classes it compiles
    (`___torch_mangle_N`) across everything its process scripted before, so an archive made
    after others would differ from the same archive made alone."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_archive_worker, (name, mode))


def run_loaded(data: bytes, inputs, spec):
    import torchvision  # noqa: F401  (registers torchvision::nms and friends for the loader)

    m = torch.jit.load(io.BytesIO(data))
    m.eval()
    with torch.no_grad():
        return m(*call_args(inputs, spec))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=os.path.join(ROOT, "target", "zoo"))
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--tier", default="", help="only this tier (ci or large)")
    ap.add_argument("--archives-only", action="store_true",
                    help="write only the archives into the cache, each checked against the "
                         "digest of the committed manifest (test/setup/zoo_models.sh)")
    opts = ap.parse_args()
    register()
    os.makedirs(opts.cache, exist_ok=True)
    os.makedirs(os.path.join(ZOO, "models"), exist_ok=True)
    os.makedirs(os.path.join(ZOO, "expected"), exist_ok=True)
    manifest_path = os.path.join(ZOO, "MANIFEST.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    only = set(filter(None, opts.only.split(",")))
    torch.set_num_threads(1)
    stale: List[str] = []
    for name, (family, library, tier, builder, modes) in MODELS.items():
        if only and name not in only or opts.tier and tier != opts.tier:
            continue
        for mode in modes:
            key = f"{name}.{mode}"
            entry = {"name": name, "mode": mode, "family": family, "library": library,
                     "tier": tier, "kind": "detection" if family == "detection" else "tensor"}
            if opts.archives_only:
                want = manifest.get(key, {}).get("sha256")
                if want is None:
                    continue
                path = os.path.join(opts.cache, f"{key}.pt")
                if os.path.exists(path) and archive_digest(open(path, "rb").read()) == want:
                    continue
                data, _, _ = fresh_archive(name, mode)
                if archive_digest(data) != want:
                    # Keep going: one library's new release should not hide the rest.
                    stale.append(name)
                    print(f"{key}: these libraries write another archive than the one the "
                          f"expected outputs came from (torch {manifest.get('torch')})", flush=True)
                    continue
                with open(path, "wb") as f:
                    f.write(data)
                print(f"{key}: {len(data) / 1e6:.2f} MB", flush=True)
                continue
            try:
                data, inputs, spec = fresh_archive(name, mode)
            except Exception as e:
                entry["pytorch_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
                print(f"{key}: PyTorch cannot {mode} it: {entry['pytorch_error']}", flush=True)
                manifest[key] = entry
                continue
            out = run_loaded(data, inputs, spec)
            tensors: List[torch.Tensor] = []
            flatten(out, tensors)
            arrays = {f"input_{i}": t.numpy() for i, t in enumerate(inputs)}
            arrays.update({f"output_{i}": t.detach().numpy() for i, t in enumerate(tensors)})
            np.savez_compressed(os.path.join(ZOO, "expected", f"{key}.npz"), **arrays)
            path = os.path.join(opts.cache, f"{key}.pt")
            with open(path, "wb") as f:
                f.write(data)
            committed = os.path.join(ZOO, "models", f"{key}.pt")
            if tier == "ci":
                shutil.copyfile(path, committed)
            elif os.path.exists(committed):
                os.remove(committed)
            entry.update({
                "archive": f"{key}.pt",
                "bytes": len(data),
                "sha256": archive_digest(data),
                "args": spec,
                "structure": structure(out),
                "params": sum(p.numel() for p in builder_params(data)),
            })
            manifest[key] = entry
            print(f"{key}: {len(data) / 1e6:.2f} MB, {entry['structure'][:80]}", flush=True)
    if opts.archives_only:
        if stale:
            sys.exit(f"regenerate these with gen_zoo.py --only {','.join(sorted(set(stale)))}")
        return
    manifest = dict(sorted(manifest.items()))
    with open(manifest_path, "w") as f:
        json.dump({"torch": torch.__version__, **{k: v for k, v in manifest.items()
                                                   if k != "torch"}}, f, indent=1)
        f.write("\n")
    ci = sum(v.get("bytes", 0) for k, v in manifest.items() if k != "torch" and v["tier"] == "ci")
    print(f"CI tier archives: {ci / 1e6:.1f} MB")


def archive_digest(data: bytes) -> str:
    """sha256 over the archive's records (name, then bytes, in the archive's order) except its
    `.debug_pkl` ones: a traced module's debug records hold the Python stack it was traced
    from, this script's line numbers and the venv's paths among it, so editing this script or
    moving the venv would change the archive's bytes while its code, constants and outputs
    stay the same."""
    import zipfile
    h = hashlib.sha256()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            if info.filename.endswith(".debug_pkl"):
                continue
            h.update(info.filename.encode() + b"\0")
            h.update(z.read(info))
    return h.hexdigest()


def builder_params(data: bytes):
    return list(torch.jit.load(io.BytesIO(data)).parameters())


if __name__ == "__main__":
    main()
