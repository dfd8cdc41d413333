"""Rows for cinder/nn/modules/flatten.py and channelshuffle.py."""


def rows(M, Arg, floats, ints):
    return [
        M("Flatten", inputs=floats((2, 3, 4))),
        M("Flatten", 0, 1, inputs=floats((2, 3, 4)), desc="0-1"),
        M("Unflatten", 1, (2, 3), inputs=floats((4, 6)), errors=[floats((4, 5))]),
        M("ChannelShuffle", 2, inputs=floats((2, 4, 3, 3)), errors=[floats((2, 3, 2, 2))]),
    ]
