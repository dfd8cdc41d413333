"""Ops PyTorch has removed but still names, so that old code fails with a message saying what
to use instead: ``torch.eig``, ``symeig``, ``solve``, ``lstsq``, ``matrix_rank`` (removed in
1.9 for their ``torch.linalg`` counterparts) and ``Tensor.reinforce`` (removed with the old
stochastic-function API). Calling one raises PyTorch's RuntimeError with its advice."""

from ._registry import register

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def eig(input, eigenvectors=False, *, e=None, v=None):
    """Removed: use ``torch.linalg.eig`` / ``torch.linalg.eigvals``."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\n"
        "L, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\n"
        "and\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed: use ``torch.linalg.eigh`` / ``torch.linalg.eigvalsh``."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion "
        "of the matrix by default to using the lower triangular portion.\n\n"
        "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def solve(input, A, *, out=None):
    """Removed: use ``torch.linalg.solve`` (arguments reversed)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def lstsq(input, A, *, out=None):
    """Removed: use ``torch.linalg.lstsq`` (arguments reversed)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the "
        "residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed: use ``torch.linalg.matrix_rank``."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The "
        "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


_REINFORCE_ADVICE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def reinforce(self, reward):
    """Removed: use ``torch.distributions`` (score-function estimators)."""
    raise RuntimeError(_REINFORCE_ADVICE)


for _name, _fn in (("eig", eig), ("symeig", symeig), ("solve", solve), ("lstsq", lstsq)):
    register(_name, _fn, family="removed")
register("matrix_rank", matrix_rank, method=False, family="removed")
register("reinforce", reinforce, function_too=False, family="removed")
