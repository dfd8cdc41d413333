"""Rows for cinder/nn/modules/dropout.py (masks compared bit for bit after the same seed)."""


def rows(M, Arg, floats, ints):
    return [
        M("Dropout", inputs=floats((4, 6)), random=True),
        M("Dropout", 0.2, inputs=floats((3, 5)), random=True, desc="p0.2"),
        M("Dropout1d", inputs=floats((2, 3, 5)), random=True),
        M("Dropout2d", inputs=floats((2, 3, 4, 4)), random=True),
        M("Dropout3d", inputs=floats((2, 3, 2, 2, 2)), random=True),
        M("AlphaDropout", inputs=floats((4, 6)), random=True),
        M("FeatureAlphaDropout", inputs=floats((2, 3, 4)), random=True),
    ]
