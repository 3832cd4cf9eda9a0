"""ruda.nn: the functions neural networks are made of, on every device.

Attention (``attention``, PyTorch's ``scaled_dot_product_attention``, JAX's
``dot_product_attention``, packed sequences and KV caches), convolution (1-3 d, transposed,
PyTorch's ``conv*d``), normalisations, activations, softmax, linear layers and lookups,
rotary embeddings, pooling, padding, dropout and the cross-entropy loss. Each is written once
over ruda Arrays with the namespace's functions (a composition), so it runs on cpu, cuda and
wgpu alike; fused device kernels can replace them one by one behind the same signatures.
float16 and bfloat16 are computed in float32 (float64 for float64). docs/NN.md has the
conventions.

>>> import ruda as np
>>> from ruda import nn
>>> nn.softmax(np.asarray([0.0, 0.0])).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

from ._activations import gelu, log_softmax, relu, sigmoid, silu, softmax, swiglu
from ._attention import attention, dot_product_attention, scaled_dot_product_attention
from ._attention_cache import attention_varlen, attention_with_kvcache
from ._conv import (
    conv,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)
from ._dropout import dropout
from ._linear import embedding, linear, one_hot
from ._losses import cross_entropy
from ._norms import group_norm, layer_norm, rms_norm
from ._pad import pad
from ._pooling import adaptive_avg_pool, avg_pool, max_pool
from ._rotary import rotary_embedding

__all__ = [
    "adaptive_avg_pool",
    "attention",
    "attention_varlen",
    "attention_with_kvcache",
    "avg_pool",
    "conv",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cross_entropy",
    "dot_product_attention",
    "dropout",
    "embedding",
    "gelu",
    "group_norm",
    "layer_norm",
    "linear",
    "log_softmax",
    "max_pool",
    "one_hot",
    "pad",
    "relu",
    "rms_norm",
    "rotary_embedding",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "softmax",
    "swiglu",
]
