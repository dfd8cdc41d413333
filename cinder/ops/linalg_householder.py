"""QR in LAPACK's compact form: ``torch.geqrf`` (R above the diagonal, Householder vectors
below it, plus their scalars ``tau``) and ``torch.ormqr`` (multiply a matrix by the ``Q``
those reflectors define, without forming ``Q``).

``geqrf`` runs LAPACK's ``?geqrf`` matrix by matrix, as PyTorch's CPU kernel does, so the
numbers agree; it has no derivative (PyTorch has none). ``ormqr`` applies the reflectors
``H_i = I - tau_i v_i v_i^H`` one at a time with cinder ops, so it is differentiable.
"""

import numpy as np

from .. import return_types
from ._linalg_common import check_float, new
from ._registry import needs_grad, node_class, record, register
from .linalg_decomp import _lapack_each
from .linalg_solve import _out


def _no_derivative(grad, s):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


GeqrfNode = node_class("GeqrfBackward0", {"self": _no_derivative})


def geqrf(input, *, out=None):
    """``(a, tau)``: the QR factorisation of each matrix in LAPACK's compact form."""
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    check_float(input, "torch.geqrf")
    a = np.asarray(input._data)
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size:
        res = _lapack_each("geqrf", [a], lambda f, mat: f(mat)[:2])
        qr = np.stack([r[0] for r in res]).reshape(a.shape)
        tau = np.stack([r[1][:k] for r in res]).reshape(a.shape[:-2] + (k,))
    else:
        qr, tau = a.copy(), np.zeros(a.shape[:-2] + (k,), a.dtype)
    result = (new(qr, input), new(tau, input))
    if needs_grad(input):
        record(GeqrfNode, (input,), result)
    return _out(out, return_types.geqrf(result))


def _reflectors(input):
    """The Householder vectors as columns: unit diagonal, zeros above it."""
    m, n = input.shape[-2:]
    from .creation import eye
    return input.tril(-1) + eye(m, n, dtype=input.dtype, device=input.device)


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """``Q @ C`` (``left``) or ``C @ Q``, with ``Q^H`` for ``transpose``, where ``Q`` is the
    product of the reflectors ``geqrf`` returned as ``(input, input2)`` and ``C`` is
    ``input3``."""
    check_float(input, "torch.ormqr")
    tau, other = input2, input3
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        which = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"torch.ormqr: {which} must be equal to input.shape[-2]")
    if tau.shape[-1] > input.shape[-1]:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to "
                           "input.shape[-1]")
    V = _reflectors(input)
    k = tau.shape[-1]
    # Q = H_0 H_1 ... H_{k-1}: applying Q from the left starts with the last reflector
    order = range(k - 1, -1, -1) if left != transpose else range(k)
    C = other
    for i in order:
        v = V[..., :, i:i + 1]
        t = tau[..., i:i + 1].unsqueeze(-1)
        if transpose:
            t = t.conj()
        C = C - t * v.matmul(v.mH.matmul(C)) if left else C - t * C.matmul(v).matmul(v.mH)
    return _out(out, C)


register("geqrf", geqrf, family="linalg", nodes=(GeqrfNode,))
register("ormqr", ormqr, family="linalg")
