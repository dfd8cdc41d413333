"""``fingerprint(module)``: the client programs print it to show their initial weights are
PyTorch's bit for bit (an integer, so the output comparison checks it exactly)."""

import hashlib


def fingerprint(module):
    """An integer digest of every parameter's name and exact bytes (equal iff bit-equal).

    Parameters only: buffers such as a positional-encoding table are computed with exp/sin,
    whose last bit may differ between libraries."""
    digest = hashlib.sha1()
    for name, tensor in module.named_parameters():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return int(digest.hexdigest()[:12], 16)
