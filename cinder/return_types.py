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
histogramdd = _named("histogramdd", ("hist", "bin_edges"))

# torch.linalg's result tuples
linalg_inv_ex = _named("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = _named("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = _named("linalg_cholesky_ex", ("L", "info"))
linalg_slogdet = _named("linalg_slogdet", ("sign", "logabsdet"))
linalg_qr = _named("linalg_qr", ("Q", "R"))
linalg_svd = _named("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _named("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _named("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_lstsq = _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_lu = _named("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _named("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _named("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_ldl_factor = _named("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _named("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
__all__ += [n for n in list(globals()) if n.startswith("linalg_")]
triangular_solve = _named("triangular_solve", ("solution", "cloned_coefficient"))
__all__.append("triangular_solve")
__all__.append("histogramdd")
