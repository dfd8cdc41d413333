"""Rows for the layer modules: cinder/nn/modules/{conv,pooling,batchnorm,instancenorm,
normalization,padding,upsampling,sparse,pixelshuffle,fold}.py.

Each spec is the constructor call as written in a PyTorch program, the input shapes (one row
per shape; integer inputs below ``index_input`` for embeddings) and options: ``bad`` input
shapes PyTorch refuses, ``grad=False``, ``random=True`` (the forward draws random numbers).
"""

SPECS = [
    ('Conv1d(3, 4, 3)', [(2, 3, 9)], dict(bad=[(2, 5, 9)])),
    ('Conv2d(3, 6, 5)', [(2, 3, 12, 12), (3, 12, 12)], dict(bad=[(2, 1, 12, 12), (12, 12)])),
    ('Conv2d(4, 6, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), groups=2, bias=False)',
     [(2, 4, 9, 8)], dict()),
    ("Conv2d(2, 3, 3, padding='same', padding_mode='reflect')", [(1, 2, 6, 7)], dict()),
    ("Conv2d(2, 3, 3, padding=2, padding_mode='circular')", [(1, 2, 6, 7)], dict()),
    ("Conv2d(2, 3, 3, padding=1, padding_mode='replicate')", [(1, 2, 6, 7)], dict()),
    ('Conv3d(2, 3, 2, stride=2, padding=(1, 0, 1))', [(1, 2, 4, 5, 4)], dict()),
    ('ConvTranspose1d(3, 2, 3, stride=2, output_padding=1)', [(2, 3, 5)], dict()),
    ('ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)',
     [(2, 4, 4, 5)], dict()),
    ('ConvTranspose3d(2, 2, 2, stride=2, bias=False)', [(1, 2, 2, 3, 2)], dict()),
    ('MaxPool1d(3, stride=2, padding=1)', [(2, 3, 9)], dict()),
    ('MaxPool2d(2)', [(2, 3, 8, 8), (3, 8, 8)], dict()),
    ('MaxPool2d(3, stride=2, ceil_mode=True, dilation=1)', [(2, 3, 9, 8)], dict()),
    ('MaxPool3d(2, stride=1, padding=1)', [(1, 2, 3, 4, 3)], dict()),
    ('AvgPool1d(3, stride=2, count_include_pad=False, padding=1)', [(2, 3, 9)], dict()),
    ('AvgPool2d(3, stride=2, padding=1, ceil_mode=True)', [(2, 3, 9, 8)], dict()),
    ('AvgPool3d(2, divisor_override=3)', [(1, 2, 4, 4, 4)], dict()),
    ('LPPool1d(2, 3, stride=2)', [(2, 3, 8)], dict()),
    ('LPPool2d(2, 2)', [(2, 3, 8, 8)], dict()),
    ('AdaptiveAvgPool1d(4)', [(2, 3, 9)], dict()),
    ('AdaptiveAvgPool2d((3, None))', [(2, 3, 9, 7)], dict()),
    ('AdaptiveAvgPool3d(2)', [(1, 2, 5, 4, 3)], dict()),
    ('AdaptiveMaxPool1d(4)', [(2, 3, 9)], dict()),
    ('AdaptiveMaxPool2d(3, return_indices=True)', [(2, 3, 9, 7)], dict()),
    ('AdaptiveMaxPool3d((2, 1, 2))', [(1, 2, 5, 4, 3)], dict()),
    ('FractionalMaxPool2d(3, output_size=(4, 5))', [(2, 3, 9, 11)], dict(random=True)),
    ('FractionalMaxPool2d(2, output_ratio=0.5, return_indices=True)',
     [(3, 10, 10)], dict(random=True)),
    ('FractionalMaxPool3d((2, 1, 3), output_ratio=(0.5, 0.6, 0.7))',
     [(1, 2, 7, 8, 9)], dict(random=True)),
    ('BatchNorm1d(3)', [(4, 3), (4, 3, 5)], dict(bad=[(4, 3, 2, 2)])),
    ('BatchNorm2d(3, momentum=None)', [(4, 3, 2, 2)], dict(bad=[(4, 3, 2)])),
    ('BatchNorm2d(3, affine=False, track_running_stats=False)', [(4, 3, 2, 2)], dict()),
    ('BatchNorm3d(2, eps=1e-3, momentum=0.2)', [(2, 2, 3, 2, 2)], dict()),
    ('SyncBatchNorm(3)', [(4, 3, 5)], dict()),
    ('InstanceNorm1d(3)', [(2, 3, 6)], dict()),
    ('InstanceNorm2d(3, affine=True, track_running_stats=True)', [(2, 3, 4, 5), (3, 4, 5)], dict()),
    ('InstanceNorm3d(2, affine=True)', [(2, 2, 3, 3, 3)], dict(bad=[(2, 5, 3, 3, 3)])),
    ('LayerNorm(6)', [(2, 3, 6)], dict(bad=[(2, 3, 5)])),
    ('LayerNorm([3, 6], elementwise_affine=False)', [(2, 3, 6)], dict()),
    ('LayerNorm(6, bias=False)', [(2, 6)], dict()),
    ('GroupNorm(2, 4)', [(2, 4, 5)], dict(bad=[(2, 6, 5)])),
    ('GroupNorm(1, 4, affine=False)', [(2, 4, 3, 3)], dict()),
    ('RMSNorm(6)', [(2, 3, 6)], dict()),
    ('RMSNorm([3, 6], eps=1e-3, elementwise_affine=False)', [(2, 3, 6)], dict()),
    ('LocalResponseNorm(3)', [(2, 5, 4, 4)], dict()),
    ('CrossMapLRN2d(3, alpha=1e-3)', [(2, 5, 4, 4)], dict(grad=False)),
    ('ReflectionPad1d(2)', [(2, 3, 5)], dict()),
    ('ReflectionPad2d((1, 2, 0, 1))', [(2, 3, 4, 5)], dict()),
    ('ReflectionPad3d(1)', [(1, 2, 3, 3, 3)], dict()),
    ('ReplicationPad1d((3, 1))', [(2, 3, 5)], dict()),
    ('ReplicationPad2d(2)', [(2, 3, 4, 5)], dict()),
    ('ReplicationPad3d((1, 0, 2, 1, 0, 1))', [(1, 2, 3, 3, 3)], dict()),
    ('CircularPad1d(2)', [(2, 3, 5)], dict()),
    ('CircularPad2d((1, 2, 0, 1))', [(2, 3, 4, 5)], dict(bad=[(4, 5)])),
    ('CircularPad3d(1)', [(1, 2, 3, 3, 3)], dict()),
    ('ConstantPad1d(2, 3.5)', [(2, 3, 5)], dict()),
    ('ConstantPad2d((1, 0, 2, 1), -1.0)', [(2, 3, 4, 5)], dict()),
    ('ConstantPad3d(1, 0.5)', [(1, 2, 3, 3, 3)], dict()),
    ('ZeroPad1d(1)', [(2, 3, 5)], dict()),
    ('ZeroPad2d((1, 1, 2, 0))', [(2, 3, 4, 5)], dict()),
    ('ZeroPad3d(1)', [(1, 2, 3, 3, 3)], dict()),
    ("Upsample(scale_factor=2, mode='nearest')", [(2, 3, 4, 5)], dict()),
    ("Upsample(size=(5, 7), mode='bilinear', align_corners=True)", [(2, 3, 4, 5)], dict()),
    ("Upsample(scale_factor=1.5, mode='bicubic')", [(2, 3, 4, 5)], dict()),
    ("Upsample(scale_factor=(2, 1, 2), mode='trilinear')", [(1, 2, 2, 3, 2)], dict()),
    ('UpsamplingNearest2d(scale_factor=3)', [(1, 2, 3, 2)], dict()),
    ('UpsamplingBilinear2d(size=(4, 6))', [(1, 2, 3, 2)], dict()),
    ('PixelShuffle(2)', [(2, 8, 3, 4)], dict(bad=[(2, 6, 3, 4)])),
    ('PixelUnshuffle(2)', [(2, 2, 4, 6)], dict()),
    ('Fold(output_size=(4, 5), kernel_size=2)', [(2, 12, 12)], dict()),
    ('Unfold(kernel_size=(2, 3), padding=1, stride=2)', [(2, 3, 5, 6)], dict()),
    ('Embedding(10, 4)', [(2, 5)], dict(index_input=10)),
    ('Embedding(10, 4, padding_idx=0, max_norm=1.0)', [(3, 4)], dict(index_input=10)),
    ('Embedding(10, 4, padding_idx=-2, scale_grad_by_freq=True)', [(7,)], dict(index_input=10)),
    ('EmbeddingBag(10, 3)', [(2, 4)], dict(index_input=10)),
    ("EmbeddingBag(10, 3, mode='max')", [(3, 2)], dict(index_input=10)),
    ("EmbeddingBag(10, 3, mode='sum', padding_idx=1)", [(4, 3)], dict(index_input=10)),
]


def _parse(spec):
    """'Conv2d(3, 6, 5, stride=2)' -> ('Conv2d', (3, 6, 5), {'stride': 2})."""
    name, rest = spec.split("(", 1)
    args, kwargs = eval(f"(lambda *a, **k: (a, k))({rest}")      # literals only
    return name, args, kwargs


def rows(M, Arg, floats, ints):
    out = []
    for spec, shapes, opts in SPECS:
        name, args, kwargs = _parse(spec)
        high = opts.get("index_input")
        for shape in shapes:
            inputs = ints(shape, high) if high else floats(shape)
            out.append(M(name, *args, kwargs=kwargs, inputs=inputs,
                         errors=[floats(b) for b in opts.get("bad", ())],
                         grad=opts.get("grad", True), random=opts.get("random", False),
                         desc=f"{spec[len(name):]}{list(shape)}"))
    return out
