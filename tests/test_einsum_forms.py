"""einsum's call forms against PyTorch: the sublist form (each operand followed by its
subscripts as integers, an optional output list last), the operands given as one list, and
the refusals of each form (exception types and messages)."""

import numpy as np
import pytest
import torch

import cinder

A = np.arange(12.0).reshape(3, 4)
B = np.arange(20.0).reshape(4, 5) - 7


def _call(lib, form):
    a, b = lib.from_numpy(A.copy()), lib.from_numpy(B.copy())
    return {
        "sublists": lambda: lib.einsum(a, [0, 1], b, [1, 2]),
        "sublists_output": lambda: lib.einsum(a, [0, 1], b, [1, 2], [2, 0]),
        "sublist_permute": lambda: lib.einsum(a, [27, 26]),
        "sublist_ellipsis": lambda: lib.einsum(a, [Ellipsis, 1]),
        "sublist_ellipsis_output": lambda: lib.einsum(b, [Ellipsis, 30], [30]),
        "operands_in_a_list": lambda: lib.einsum("ij,jk", [a, b]),
        "operands_in_a_tuple": lambda: lib.einsum("ij", (a,)),
        "subscript_out_of_range": lambda: lib.einsum(a, [0, 52]),
        "negative_subscript": lambda: lib.einsum(a, [-1, 0]),
        "no_operand": lambda: lib.einsum("ij"),
        "empty_operand_list": lambda: lib.einsum("ij", []),
        "operand_without_sublist": lambda: lib.einsum(a),
        "diagonal_sizes_differ": lambda: lib.einsum("ii", a),
        "sublist_diagonal_sizes_differ": lambda: lib.einsum(a, [3, 3]),
        "broadcast_sizes_differ": lambda: lib.einsum("ij,ij", a, b),
    }[form]()


@pytest.mark.parametrize("form", [
    "sublists", "sublists_output", "sublist_permute", "sublist_ellipsis",
    "sublist_ellipsis_output", "operands_in_a_list", "operands_in_a_tuple",
    "subscript_out_of_range", "negative_subscript", "no_operand", "empty_operand_list",
    "operand_without_sublist", "diagonal_sizes_differ", "sublist_diagonal_sizes_differ",
    "broadcast_sizes_differ"])
def test_einsum_form_matches_torch(form):
    outcomes = []
    for lib in (torch, cinder):
        try:
            r = _call(lib, form)
            outcomes.append(("ok", tuple(r.shape), r.stride(), r.numpy().tolist()))
        except Exception as exc:  # noqa: BLE001 - the exception itself is compared
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[1] == outcomes[0]
