"""Speech models in the style of torchaudio's, built from torch.nn blocks (torchaudio has no
release for torch 2.15, so it cannot be installed beside it). They follow torchaudio's
source layer for layer: torchaudio.models.Conformer (conformer.py: _FeedForwardModule,
_ConvolutionModule, ConformerLayer, Conformer with its length masks) and
torchaudio.models.wav2vec2 (components.py: ConvLayerBlock, FeatureExtractor,
FeatureProjection, ConvolutionalPositionalEmbedding, SelfAttention, FeedForward,
EncoderLayer, Transformer, Encoder; model.py: Wav2Vec2Model with its lengths). Both script
and trace, as torchaudio's do."""
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor


def _lengths_to_padding_mask(lengths: Tensor) -> Tensor:
    batch_size = lengths.shape[0]
    max_length = int(torch.max(lengths).item())
    padding_mask = torch.arange(max_length, device=lengths.device, dtype=lengths.dtype).expand(
        batch_size, max_length
    ) >= lengths.unsqueeze(1)
    return padding_mask


class _ConvolutionModule(nn.Module):
    def __init__(self, input_dim: int, num_channels: int, depthwise_kernel_size: int,
                 dropout: float = 0.0, bias: bool = False, use_group_norm: bool = False):
        super().__init__()
        if (depthwise_kernel_size - 1) % 2 != 0:
            raise ValueError("depthwise_kernel_size must be odd to achieve 'SAME' padding.")
        self.layer_norm = nn.LayerNorm(input_dim)
        self.sequential = nn.Sequential(
            nn.Conv1d(input_dim, 2 * num_channels, 1, stride=1, padding=0, bias=bias),
            nn.GLU(dim=1),
            nn.Conv1d(num_channels, num_channels, depthwise_kernel_size, stride=1,
                      padding=(depthwise_kernel_size - 1) // 2, groups=num_channels, bias=bias),
            nn.GroupNorm(num_groups=1, num_channels=num_channels) if use_group_norm
            else nn.BatchNorm1d(num_channels),
            nn.SiLU(),
            nn.Conv1d(num_channels, input_dim, kernel_size=1, stride=1, padding=0, bias=bias),
            nn.Dropout(dropout),
        )

    def forward(self, input: Tensor) -> Tensor:
        x = self.layer_norm(input)
        x = x.transpose(1, 2)
        x = self.sequential(x)
        return x.transpose(1, 2)


class _FeedForwardModule(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, dropout: float = 0.0):
        super().__init__()
        self.sequential = nn.Sequential(
            nn.LayerNorm(input_dim),
            nn.Linear(input_dim, hidden_dim, bias=True),
            nn.SiLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_dim, input_dim, bias=True),
            nn.Dropout(dropout),
        )

    def forward(self, input: Tensor) -> Tensor:
        return self.sequential(input)


class ConformerLayer(nn.Module):
    def __init__(self, input_dim: int, ffn_dim: int, num_attention_heads: int,
                 depthwise_conv_kernel_size: int, dropout: float = 0.0,
                 use_group_norm: bool = False, convolution_first: bool = False):
        super().__init__()
        self.ffn1 = _FeedForwardModule(input_dim, ffn_dim, dropout=dropout)
        self.self_attn_layer_norm = nn.LayerNorm(input_dim)
        self.self_attn = nn.MultiheadAttention(input_dim, num_attention_heads, dropout=dropout)
        self.self_attn_dropout = nn.Dropout(dropout)
        self.conv_module = _ConvolutionModule(
            input_dim=input_dim, num_channels=input_dim,
            depthwise_kernel_size=depthwise_conv_kernel_size, dropout=dropout, bias=True,
            use_group_norm=use_group_norm)
        self.ffn2 = _FeedForwardModule(input_dim, ffn_dim, dropout=dropout)
        self.final_layer_norm = nn.LayerNorm(input_dim)
        self.convolution_first = convolution_first

    def _apply_convolution(self, input: Tensor) -> Tensor:
        residual = input
        input = input.transpose(0, 1)
        input = self.conv_module(input)
        input = input.transpose(0, 1)
        input = residual + input
        return input

    def forward(self, input: Tensor, key_padding_mask: Optional[Tensor]) -> Tensor:
        residual = input
        x = self.ffn1(input)
        x = x * 0.5 + residual
        if self.convolution_first:
            x = self._apply_convolution(x)
        residual = x
        x = self.self_attn_layer_norm(x)
        x, _ = self.self_attn(query=x, key=x, value=x, key_padding_mask=key_padding_mask,
                              need_weights=False)
        x = self.self_attn_dropout(x)
        x = x + residual
        if not self.convolution_first:
            x = self._apply_convolution(x)
        residual = x
        x = self.ffn2(x)
        x = x * 0.5 + residual
        x = self.final_layer_norm(x)
        return x


class Conformer(nn.Module):
    """torchaudio.models.Conformer: forward(input (B, T, D), lengths (B,)) -> (output, lengths)."""

    def __init__(self, input_dim: int, num_heads: int, ffn_dim: int, num_layers: int,
                 depthwise_conv_kernel_size: int, dropout: float = 0.0,
                 use_group_norm: bool = False, convolution_first: bool = False):
        super().__init__()
        self.conformer_layers = nn.ModuleList([
            ConformerLayer(input_dim, ffn_dim, num_heads, depthwise_conv_kernel_size,
                           dropout=dropout, use_group_norm=use_group_norm,
                           convolution_first=convolution_first)
            for _ in range(num_layers)
        ])

    def forward(self, input: Tensor, lengths: Tensor) -> Tuple[Tensor, Tensor]:
        encoder_padding_mask = _lengths_to_padding_mask(lengths)
        x = input.transpose(0, 1)
        for layer in self.conformer_layers:
            x = layer(x, encoder_padding_mask)
        return x.transpose(0, 1), lengths


class LayerNorm(nn.LayerNorm):
    """Layer norm over the channel dimension of (B, C, T) (torchaudio's components.LayerNorm)."""

    def forward(self, input: Tensor) -> Tensor:
        x = input.transpose(-2, -1)
        x = nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        x = x.transpose(-2, -1)
        return x


class ConvLayerBlock(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int,
                 bias: bool, layer_norm: Optional[nn.Module]):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.layer_norm = layer_norm
        self.conv = nn.Conv1d(in_channels=in_channels, out_channels=out_channels,
                              kernel_size=kernel_size, stride=stride, bias=bias)

    def forward(self, x: Tensor, length: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
        x = self.conv(x)
        if self.layer_norm is not None:
            x = self.layer_norm(x)
        x = nn.functional.gelu(x)
        if length is not None:
            length = torch.div(length - self.kernel_size, self.stride, rounding_mode="floor") + 1
            # When input length is 0, the resulting length can be negative. So fix it here.
            length = torch.max(torch.zeros_like(length), length)
        return x, length


class FeatureExtractor(nn.Module):
    def __init__(self, conv_layers: nn.ModuleList):
        super().__init__()
        self.conv_layers = conv_layers

    def forward(self, x: Tensor, length: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
        if x.ndim != 2:
            raise ValueError(f"Expected the input Tensor to be 2D (batch, time). Found: {list(x.shape)}")
        x = x.unsqueeze(1)  # (batch, channel==1, frame)
        for layer in self.conv_layers:
            x, length = layer(x, length)  # (batch, feature, frame)
        x = x.transpose(1, 2)  # (batch, frame, feature)
        return x, length


class FeatureProjection(nn.Module):
    def __init__(self, in_features: int, out_features: int, dropout: float):
        super().__init__()
        self.layer_norm = nn.LayerNorm(in_features)
        self.projection = nn.Linear(in_features, out_features)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        x = self.layer_norm(x)
        x = self.projection(x)
        x = self.dropout(x)
        return x


class ConvolutionalPositionalEmbedding(nn.Module):
    def __init__(self, embed_dim: int, kernel_size: int, groups: int):
        super().__init__()
        self.embed_dim = embed_dim
        self.kernel_size = kernel_size
        self.conv = nn.Conv1d(in_channels=embed_dim, out_channels=embed_dim,
                              kernel_size=kernel_size, padding=kernel_size // 2, groups=groups)
        self.conv = nn.utils.parametrizations.weight_norm(self.conv, name="weight", dim=2)
        self.num_remove: int = 1 if kernel_size % 2 == 0 else 0

    def __prepare_scriptable__(self):
        # As torchaudio: scripting cannot run the weight-norm parametrization; the weight it
        # computes becomes a plain parameter (tracing records the computation instead).
        if self.conv.__class__.__name__ == "ParametrizedConv1d":
            torch.nn.utils.parametrize.remove_parametrizations(self.conv, "weight")
        return self

    def forward(self, x: Tensor) -> Tensor:
        x = x.transpose(-2, -1)
        x = self.conv(x)
        if self.num_remove > 0:
            x = x[..., : -self.num_remove]
        x = torch.nn.functional.gelu(x)
        x = x.transpose(-2, -1)
        return x


class SelfAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        head_dim = embed_dim // num_heads
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = head_dim
        self.scaling = self.head_dim**-0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=True)

    def forward(self, x: Tensor, attention_mask: Optional[Tensor] = None) -> Tensor:
        batch_size, length, embed_dim = x.size()
        shape = (batch_size, length, self.num_heads, self.head_dim)
        q = self.q_proj(x).view(*shape).transpose(2, 1)  # B, nH, L, Hd
        k = self.k_proj(x).view(*shape).transpose(2, 1)  # B, nH, L, Hd
        v = self.v_proj(x).view(*shape).transpose(2, 1)  # B, nH, L, Hd
        dropout = self.dropout if self.training else 0.0
        attn_output = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=attention_mask, dropout_p=dropout, is_causal=False)
        attn_output = attn_output.transpose(1, 2).reshape(batch_size, -1, self.num_heads * self.head_dim)
        output = self.out_proj(attn_output)
        return output


class FeedForward(nn.Module):
    def __init__(self, io_features: int, intermediate_features: int):
        super().__init__()
        self.intermediate_dense = nn.Linear(io_features, intermediate_features)
        self.output_dense = nn.Linear(intermediate_features, io_features)

    def forward(self, x: Tensor) -> Tensor:
        x = self.intermediate_dense(x)
        x = torch.nn.functional.gelu(x)
        x = self.output_dense(x)
        return x


class EncoderLayer(nn.Module):
    def __init__(self, attention: nn.Module, layer_norm_first: bool, feed_forward: nn.Module,
                 embed_dim: int):
        super().__init__()
        self.attention = attention
        self.dropout = nn.Dropout(0.0)
        self.layer_norm = nn.LayerNorm(embed_dim)
        self.layer_norm_first = layer_norm_first
        self.feed_forward = feed_forward
        self.final_layer_norm = nn.LayerNorm(embed_dim)

    def forward(self, x: Tensor, attention_mask: Optional[Tensor] = None) -> Tensor:
        residual = x
        if self.layer_norm_first:
            x = self.layer_norm(x)
        x = self.attention(x, attention_mask)
        x = self.dropout(x)
        x = residual + x
        if self.layer_norm_first:
            x = x + self.feed_forward(self.final_layer_norm(x))
        else:
            x = self.layer_norm(x)
            x = self.final_layer_norm(x + self.feed_forward(x))
        return x


class Transformer(nn.Module):
    def __init__(self, pos_conv_embed: nn.Module, embed_dim: int, layers: nn.ModuleList,
                 layer_norm_first: bool):
        super().__init__()
        self.pos_conv_embed = pos_conv_embed
        self.layer_norm = nn.LayerNorm(embed_dim)
        self.layer_norm_first = layer_norm_first
        self.dropout = nn.Dropout(0.0)
        self.layers = layers

    def _preprocess(self, x: Tensor) -> Tensor:
        x = x + self.pos_conv_embed(x)
        if self.layer_norm_first:
            x = self.layer_norm(x)
        x = self.dropout(x)
        return x

    def forward(self, x: Tensor, attention_mask: Optional[Tensor] = None) -> Tensor:
        x = self._preprocess(x)
        for layer in self.layers:
            x = layer(x, attention_mask)
        if not self.layer_norm_first:
            x = self.layer_norm(x)
        return x


class Encoder(nn.Module):
    def __init__(self, feature_projection: nn.Module, transformer: nn.Module):
        super().__init__()
        self.feature_projection = feature_projection
        self.transformer = transformer

    def _preprocess(self, features: Tensor, lengths: Optional[Tensor] = None
                    ) -> Tuple[Tensor, Optional[Tensor]]:
        x = self.feature_projection(features)
        mask: Optional[Tensor] = None
        if lengths is not None:
            batch_size, max_len, _ = x.shape
            # create mask for padded elements and zero-out them
            mask = torch.arange(max_len, device=lengths.device).expand(batch_size, max_len) >= lengths[:, None]
            x[mask] = 0.0
            # extend the mask to attention shape and set weight
            mask = -10000.0 * mask[:, None, None, :].to(dtype=features.dtype)
            mask = mask.expand(batch_size, 1, max_len, max_len)
        return x, mask

    def forward(self, features: Tensor, lengths: Optional[Tensor] = None) -> Tensor:
        x, mask = self._preprocess(features, lengths)
        x = self.transformer(x, attention_mask=mask)
        return x


class Wav2Vec2Model(nn.Module):
    """torchaudio.models.Wav2Vec2Model: forward(waveforms (B, T), lengths (B,)) ->
    (features, lengths), with a classification head as wav2vec2_model(aux_num_out=...)."""

    def __init__(self, feature_extractor: nn.Module, encoder: nn.Module, aux: Optional[nn.Module]):
        super().__init__()
        self.feature_extractor = feature_extractor
        self.encoder = encoder
        self.aux = aux

    def forward(self, waveforms: Tensor, lengths: Optional[Tensor] = None
                ) -> Tuple[Tensor, Optional[Tensor]]:
        x, lengths = self.feature_extractor(waveforms, lengths)
        x = self.encoder(x, lengths)
        if self.aux is not None:
            x = self.aux(x)
        return x, lengths


def wav2vec2_model(conv_layers: List[Tuple[int, int, int]], embed_dim: int, num_layers: int,
                   num_heads: int, ffn_dim: int, pos_conv_kernel: int, pos_conv_groups: int,
                   layer_norm_first: bool, aux_num_out: Optional[int]) -> Wav2Vec2Model:
    """torchaudio.models.wav2vec2_model with extractor_mode="group_norm" for the first layer
    and "layer_norm" after it chosen per layer as torchaudio's _get_feature_extractor does."""
    blocks = []
    in_channels = 1
    for i, (out_channels, kernel_size, stride) in enumerate(conv_layers):
        normalization = None
        if i == 0:
            normalization = nn.GroupNorm(num_groups=out_channels, num_channels=out_channels, affine=True)
        elif layer_norm_first:
            normalization = LayerNorm(normalized_shape=out_channels, elementwise_affine=True)
        blocks.append(ConvLayerBlock(in_channels, out_channels, kernel_size, stride,
                                     bias=False, layer_norm=normalization))
        in_channels = out_channels
    feature_extractor = FeatureExtractor(nn.ModuleList(blocks))
    projection = FeatureProjection(in_channels, embed_dim, 0.0)
    pos_conv = ConvolutionalPositionalEmbedding(embed_dim, pos_conv_kernel, pos_conv_groups)
    layers = nn.ModuleList([
        EncoderLayer(SelfAttention(embed_dim, num_heads), layer_norm_first,
                     FeedForward(embed_dim, ffn_dim), embed_dim)
        for _ in range(num_layers)
    ])
    encoder = Encoder(projection, Transformer(pos_conv, embed_dim, layers, layer_norm_first))
    aux = nn.Linear(embed_dim, aux_num_out) if aux_num_out is not None else None
    return Wav2Vec2Model(feature_extractor, encoder, aux)
