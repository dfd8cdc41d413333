"""``torch.return_types``: the named tuples ops like ``max(dim)`` and ``sort`` return."""

__all__ = ["max", "min", "max_out", "min_out", "sort", "topk", "kthvalue", "mode", "median",
           "nanmedian", "aminmax",
           "std_mean", "var_mean", "cummax", "cummin", "slogdet", "qr", "svd", "eigh", "eig",
           "lu_unpack", "histogram", "frexp", "geqrf"]


def _named(name, fields):
    """A tuple subclass that prints like PyTorch's structseq (``torch.return_types.max(...)``)."""
    def __new__(cls, values):
        values = tuple(values)
        if len(values) != len(fields):
            raise TypeError(f"torch.return_types.{name} takes a {len(fields)}-sequence")
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (cls, (tuple(self),))

    ns = {"__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__, "__slots__": (),
          "n_fields": len(fields), "n_sequence_fields": len(fields), "_fields": fields}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    cls = type(name, (tuple,), ns)
    cls.__module__ = "torch.return_types"
    return cls


max = _named("max", ("values", "indices"))
max_out = _named("max_out", ("values", "indices"))     # what max(..., out=(v, i)) returns
min_out = _named("min_out", ("values", "indices"))
min = _named("min", ("values", "indices"))
sort = _named("sort", ("values", "indices"))
topk = _named("topk", ("values", "indices"))
kthvalue = _named("kthvalue", ("values", "indices"))
mode = _named("mode", ("values", "indices"))
median = _named("median", ("values", "indices"))
nanmedian = _named("nanmedian", ("values", "indices"))
cummax = _named("cummax", ("values", "indices"))
cummin = _named("cummin", ("values", "indices"))
aminmax = _named("aminmax", ("min", "max"))
std_mean = _named("std_mean", ("std", "mean"))
var_mean = _named("var_mean", ("var", "mean"))
slogdet = _named("slogdet", ("sign", "logabsdet"))
qr = _named("qr", ("Q", "R"))
svd = _named("svd", ("U", "S", "V"))
eigh = _named("eigh", ("eigenvalues", "eigenvectors"))
eig = _named("eig", ("eigenvalues", "eigenvectors"))
lu_unpack = _named("lu_unpack", ("P", "L", "U"))
histogram = _named("histogram", ("hist", "bin_edges"))
frexp = _named("frexp", ("mantissa", "exponent"))
geqrf = _named("geqrf", ("a", "tau"))
