"""How a tensor turns into text (``repr(t)``, ``str(t)``), matching PyTorch character for character.

A printed tensor has three parts::

    tensor([ 1.5000, -2.0000], dtype=torch.float64, requires_grad=True)

* the prefix ``tensor(``;
* the body ``[ 1.5000, -2.0000]``: the values, in one pair of brackets per dimension;
* the suffixes, only those that are needed: the device unless it is the CPU, ``size=`` where the
  body does not show the shape, ``dtype=`` where ``torch.tensor`` would not infer that dtype from
  the printed values, and ``grad_fn=<...>`` or ``requires_grad=True``; then the closing ``)``.

The body is the interesting part. PyTorch picks ONE number style for the whole tensor, so that the
columns line up:

* integer and bool tensors print each value with ``str`` (``7``, ``-12``, ``True``);
* float tensors whose finite non-zero values are all whole numbers print as ``1.``, ``20.``
  ("int mode": the trailing dot says the tensor is floating point);
* other float tensors print with a fixed number of decimals (``precision``, default 4);
* scientific notation (``1.0000e-10``) is used instead when the magnitudes are too far apart, very
  large or very small (or always / never, if ``set_printoptions(sci_mode=...)`` says so).

Every element is right-aligned to the width of the widest one. Rows that do not fit in
``linewidth`` characters are wrapped, and tensors with more than ``threshold`` elements are
summarised: only the first and last ``edgeitems`` entries of each dimension are shown, with
``...`` between them. Complex values print as ``real+imagj``, each part with its own style.

All computation here is plain NumPy on a host copy of the values.
"""

import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions", "set_printoptions", "tensor_repr"]


# ----------------------------------------------------------------------------------------------
# Print options
# ----------------------------------------------------------------------------------------------

@dataclasses.dataclass
class _PrintOptions:
    """The global knobs of tensor printing (the same ones, with the same defaults, as PyTorch)."""

    precision: int = 4          # digits after the decimal point for floats
    threshold: float = 1000     # more elements than this -> summarise with '...'
    edgeitems: int = 3          # entries kept at each end of a summarised dimension
    linewidth: int = 80         # characters per line before a row is wrapped
    sci_mode: bool | None = None  # None: choose automatically; True/False: force it


PRINT_OPTS = _PrintOptions()

# The three named profiles. Each sets everything except sci_mode.
_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Change how tensors print (like ``torch.set_printoptions``).

    ``profile`` ('default', 'short' or 'full') is applied first, then any explicit option on top.
    An unknown profile name is ignored, as in PyTorch.

    Note that ``sci_mode`` is *always* assigned, so a call that leaves it out switches it back to
    automatic (``None``). PyTorch behaves the same way.
    """
    if profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    explicit = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
                "linewidth": linewidth}
    for name, value in explicit.items():
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict that can be passed back to ``set_printoptions(**d)``."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options inside a ``with`` block; they are restored after."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ----------------------------------------------------------------------------------------------
# Formatting single values
# ----------------------------------------------------------------------------------------------

class _ValueFormatter:
    """Formats the values of one (real) tensor, all in the same style and width.

    It is built from the values that will actually be shown (after summarisation), measures them
    once, and then ``format(value)`` returns a string padded on the left to ``width``.
    """

    def __init__(self, values, is_float):
        self.is_float = is_float
        self.int_mode = True     # floats only: every finite non-zero value is a whole number
        self.sci_mode = False    # floats only: use 1.2345e+06 notation
        self.width = 1
        if is_float:
            self._measure_floats(np.asarray(values, dtype=np.float64).ravel())
        else:
            for value in np.asarray(values).ravel().tolist():
                self.width = max(self.width, len(str(value)))

    def _measure_floats(self, values):
        # Zeros, nan and inf say nothing about the scale of the data, so the style is chosen
        # from the finite non-zero values only; they do not count towards the width either.
        useful = values[np.isfinite(values) & (values != 0)]
        if useful.size == 0:
            return  # nothing to measure: keep int mode, fixed notation, width 1

        self.int_mode = bool(np.all(useful == np.ceil(useful)))

        magnitudes = np.abs(useful)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        if PRINT_OPTS.sci_mode is None:
            # Fixed notation would lose the small values or need too many digits.
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = bool(PRINT_OPTS.sci_mode)

        for value in useful.tolist():
            self.width = max(self.width, self._measured_length(value))

    def _measured_length(self, value):
        """Length of one finite non-zero value in the chosen style."""
        if self.sci_mode:
            return len(f"{value:.{PRINT_OPTS.precision}e}")
        if self.int_mode:
            return len(f"{value:.0f}") + 1  # +1 for the trailing '.'
        return len(f"{value:.{PRINT_OPTS.precision}f}")

    def format(self, value):
        """One value (a Python float, int or bool) as a right-aligned string."""
        if not self.is_float:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRINT_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."  # '3.' rather than '3' marks a float; 'nan' and 'inf' stay bare
        else:
            text = f"{value:.{PRINT_OPTS.precision}f}"
        return text.rjust(self.width)


class _ElementFormatter:
    """Formats one element of a tensor: a real value, or a complex value as ``re+imj``.

    For complex tensors the real and the imaginary parts each get their own ``_ValueFormatter``,
    so for instance the real parts may be in int mode while the imaginary parts are not.
    """

    def __init__(self, shown_values, is_float, is_complex):
        self.is_complex = is_complex
        if is_complex:
            self.real = _ValueFormatter(shown_values.real, is_float=True)
            self.imag = _ValueFormatter(shown_values.imag, is_float=True)
        else:
            self.real = _ValueFormatter(shown_values, is_float)
            self.imag = None

    def width(self):
        """Characters one element takes, not counting the ', ' separator."""
        if self.is_complex:
            return self.real.width + self.imag.width + 1  # +1 for the 'j'
        return self.real.width

    def format(self, value):
        if not self.is_complex:
            return self.real.format(value)
        real_text = self.real.format(value.real)
        # The imaginary part loses its padding; it is glued to the real part with its sign.
        imag_text = (self.imag.format(value.imag) + "j").lstrip()
        if imag_text.startswith("-"):
            return real_text + imag_text
        return real_text + "+" + imag_text


# ----------------------------------------------------------------------------------------------
# Summarisation
# ----------------------------------------------------------------------------------------------

def _shown_values(values, edgeitems):
    """The values a summarised tensor will display, used to choose style and width.

    PyTorch measures only what is printed, so a hidden huge value in the middle of a large tensor
    does not switch the visible ones to scientific notation.
    """
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edgeitems:
            # With edgeitems == 0 the slice values[-0:] is the whole row, so the whole row is
            # measured (only '...' is printed then, so the result does not matter).
            return np.concatenate((values[:edgeitems], values[-edgeitems:]))
        return values
    if not edgeitems:
        return np.empty((0,) * values.ndim, dtype=values.dtype)
    rows = _kept_indices(values.shape[0], edgeitems, summarize=True)
    return np.stack([_shown_values(values[i], edgeitems) for i in rows if i is not None])


def _kept_indices(length, edgeitems, summarize):
    """Indices shown along one dimension; ``None`` marks where the '...' goes."""
    if summarize and length > 2 * edgeitems:
        return list(range(edgeitems)) + [None] + list(range(length - edgeitems, length))
    return list(range(length))


# ----------------------------------------------------------------------------------------------
# Laying out the body
# ----------------------------------------------------------------------------------------------

def _format_row(row, indent, summarize, formatter):
    """A 1-d array as '[a, b, c]', wrapped so that lines stay within ``linewidth``.

    ``indent`` is the column of the opening bracket; continuation lines start one column
    further so that they line up under the first element.
    """
    if summarize and not PRINT_OPTS.edgeitems:
        items = ["..."]  # nothing kept at either end: a bare '...' without the leading space
    else:
        items = []
        for i in _kept_indices(row.shape[0], PRINT_OPTS.edgeitems, summarize):
            # The ellipsis gets a leading space, which makes it ',  ...,' in the output.
            items.append(" ..." if i is None else formatter.format(row[i].item()))

    slot = formatter.width() + 2  # an element plus its ', ' separator
    per_line = max(1, (PRINT_OPTS.linewidth - indent) // slot)
    lines = [", ".join(items[start:start + per_line]) for start in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_block(values, indent, summarize, formatter):
    """An n-d array as nested brackets (n >= 0), one sub-block per slice of the first axis.

    Rows of a matrix are on consecutive lines; between the matrices of a 3-d tensor there is one
    blank line, between the blocks of a 4-d tensor two, and so on (``ndim - 1`` newlines).
    """
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _format_row(values, indent, summarize, formatter)

    parts = []
    for i in _kept_indices(values.shape[0], PRINT_OPTS.edgeitems, summarize):
        if i is None:
            parts.append("...")  # with edgeitems == 0 this is all that is left: '[...]'
        else:
            parts.append(_format_block(values[i], indent + 1, summarize, formatter))
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _format_body(values, indent, is_float, is_complex):
    """The bracketed values of a non-empty tensor, e.g. '[1., 2.]' or '3.5000' for 0-d.

    Elements reach the formatter as Python numbers (``.item()``; float16 and bfloat16 widen to
    a Python float exactly), so Python's own float formatting produces the digits, as in PyTorch.
    Only the displayed elements are ever converted, which keeps huge summarised tensors cheap.
    """
    summarize = values.size > PRINT_OPTS.threshold
    measured = _shown_values(values, PRINT_OPTS.edgeitems) if summarize else values
    formatter = _ElementFormatter(measured, is_float, is_complex)
    return _format_block(values, indent, summarize, formatter)


# ----------------------------------------------------------------------------------------------
# Suffixes and the whole repr
# ----------------------------------------------------------------------------------------------

def _default_dtype_name():
    """'torch.float32' (or whatever the default float dtype currently is)."""
    return repr(_dtype.get_default_dtype())


def _implied_dtype_names():
    """dtypes that ``torch.tensor(...)`` would pick on its own, so the repr need not name them."""
    default = _default_dtype_name()
    default_complex = "torch.complex128" if default == "torch.float64" else "torch.complex64"
    return {default, default_complex, "torch.int64", "torch.bool"}


def _size_suffix(t):
    return "size=" + str(tuple(int(n) for n in t.shape))


def _grad_suffix(t):
    """'grad_fn=<MulBackward0>' for results of differentiable ops, 'requires_grad=True' for
    leaves that require grad, else None."""
    grad_fn = t.grad_fn
    if grad_fn is not None:
        name_method = getattr(grad_fn, "name", None)
        name = name_method() if callable(name_method) else type(grad_fn).__name__
        return f"grad_fn=<{name.rsplit('::', 1)[-1]}>"
    if t.requires_grad:
        return "requires_grad=True"
    return None


def _defines_class(cls, name):
    """Whether ``cls`` is, or inherits from, cinder's class called ``name``."""
    return any(c.__name__ == name and c.__module__.startswith("cinder") for c in cls.__mro__)


def _prefix(t):
    """'tensor(' for tensors and parameters; other subclasses print their own class name, as in
    ``MyTensor([1., 2.])``."""
    cls = type(t)
    if not _defines_class(cls, "Tensor") or cls.__name__ in ("Tensor", "Parameter"):
        return "tensor("
    return cls.__name__ + "("


def _attach_suffixes(text, suffixes, indent):
    """Append ', suffix' items and the closing ')', moving a suffix onto a new line (indented to
    ``indent``) when it would make the current line too long.

    PyTorch's length estimate for the current line runs two characters ahead of the real length
    (as if the ', ' were already counted), and the test is ``estimate + len(suffix) + 2 >
    linewidth``. We reproduce that arithmetic exactly so that wrapping happens at the same
    place.
    """
    pieces = [text]
    line_length = len(text) - (text.rfind("\n") + 1) + 2
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > PRINT_OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            line_length += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def tensor_repr(t, tensor_contents=None):
    """The text PyTorch prints for ``t``; used for both ``repr(t)`` and ``str(t)``.

    ``tensor_contents``, if given, replaces the bracketed values (the suffixes are still added).
    """
    prefix = _prefix(t)
    indent = len(prefix)  # continuation lines line up under the first '['
    dtype_name = repr(t.dtype)
    suffixes = []

    # Only the default device (the CPU) goes unmentioned.
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")

    if t.device.type == "meta":
        # Meta tensors have a shape but no values.
        suffixes.append(_size_suffix(t))
        if dtype_name != _default_dtype_name():
            suffixes.append("dtype=" + dtype_name)
        body = "..."
    elif t.numel() == 0:
        # '[]' alone reads as shape (0,); any other empty shape is spelled out. With no values
        # to infer from, every dtype but the default float one is named (even int64).
        if t.ndim != 1:
            suffixes.append(_size_suffix(t))
        if dtype_name != _default_dtype_name():
            suffixes.append("dtype=" + dtype_name)
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(_size_suffix(t))  # the body shows nothing of the shape then
        if dtype_name not in _implied_dtype_names():
            suffixes.append("dtype=" + dtype_name)
        body = None  # formatted below, unless the caller supplied the contents

    if tensor_contents is not None:
        body = tensor_contents
    elif body is None:
        body = _format_body(t._host_numpy(), indent, t.dtype.is_floating_point,
                            t.dtype.is_complex)

    grad = _grad_suffix(t)
    if grad is not None:
        suffixes.append(grad)

    text = _attach_suffixes(prefix + body, suffixes, indent)
    if prefix != "tensor(" and _defines_class(type(t), "Parameter"):
        text = f"Parameter({text})"  # a subclass of Parameter: say that it is one
    return text
