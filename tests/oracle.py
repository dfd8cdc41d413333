"""Helpers for tests that run the same expression on PyTorch and on cinder.

An expression is written against ``L`` (the library) and evaluated once per library; its
outcome (the repr of the value, or the exception's type and message) is what gets compared.
"""

import copy
import pickle
import subprocess
import sys
import warnings

import numpy as np
import torch

import cinder


def outcome(expr, lib, env=None):
    """``('value', repr(result))`` or ``('raises', type name, message)`` of ``expr`` on ``lib``."""
    scope = {"L": lib, "np": np, "copy": copy, "pickle": pickle}
    scope.update(env or {})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expr, scope)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return ("raises", type(e).__name__, str(e))
    return ("value", repr(value))


def check(expr, env=None):
    """``expr`` has the same outcome on cinder as on PyTorch."""
    assert outcome(expr, cinder, env) == outcome(expr, torch, env), expr


def warnings_in_fresh_process(lib, code):
    """The warnings (category and message) ``code`` emits in a new interpreter: PyTorch warns
    only once per process, so each library gets its own."""
    script = ("import warnings\nimport {lib} as L\nwith warnings.catch_warnings(record=True) as w:"
              "\n    warnings.simplefilter('always')\n    {code}\nfor m in w:\n"
              "    print(m.category.__name__, str(m.message).split(' (Triggered internally')[0])\n")
    done = subprocess.run([sys.executable, "-c", script.format(lib=lib, code=code)],
                          capture_output=True, text=True, check=True)
    return done.stdout
