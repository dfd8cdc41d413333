"""Visdom accepts cinder tensors (offline client writing a log), and the autograd graph as DOT."""

import json
import re

import numpy as np
import pytest
import torch

import cinder


def _visdom_log(tmp_path, lib, name):
    visdom = pytest.importorskip("visdom")
    path = tmp_path / f"{name}.log"
    vis = visdom.Visdom(offline=True, log_to_filename=str(path))
    x = lib.from_numpy(np.arange(6, dtype=np.float32))
    vis.line(X=x, Y=x * x, win="line")
    vis.images(lib.from_numpy(np.linspace(0, 1, 2 * 3 * 4 * 4, dtype=np.float32)
                              .reshape(2, 3, 4, 4)), win="imgs", nrow=2)
    vis.scatter(X=lib.from_numpy(np.array([[0.0, 1.0], [2.0, 3.0]], dtype=np.float32)),
                win="scatter")
    vis.heatmap(X=lib.from_numpy(np.eye(3, dtype=np.float32)), win="heat")
    w = lib.ones(4, requires_grad=True)
    vis.bar(X=w * 2, win="bar")            # a tensor that requires grad is detached
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_visdom_takes_cinder_tensors_like_torch_tensors(tmp_path):
    ours = _visdom_log(tmp_path, cinder, "cinder")
    theirs = _visdom_log(tmp_path, torch, "torch")
    assert len(ours) == len(theirs) == 5
    assert ours == theirs


def _torch_names(fn, seen=None):
    seen = set() if seen is None else seen
    if fn is None or fn in seen:
        return set()
    seen.add(fn)
    names = {type(fn).__name__}
    for nxt, _ in fn.next_functions:
        names |= _torch_names(nxt, seen)
    return names


def _graph(lib):
    lib.manual_seed(0)
    w = lib.randn(3, 2, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    x = lib.randn(4, 3)
    y = (x.matmul(w) + b).relu().pow(2).mean()
    return y, {"weight": w, "bias": b}


def test_to_dot_names_nodes_as_pytorch():
    ours, params = _graph(cinder)
    theirs, _ = _graph(torch)
    dot = cinder.autograd.graph.to_dot(ours, params=params)
    assert dot.startswith("digraph backward {") and dot.rstrip().endswith("}")
    labels = re.findall(r'label="([^"\\]+)', dot)
    expected = _torch_names(theirs.grad_fn) - {"AccumulateGrad"}
    assert expected <= set(labels)
    assert 'label="weight\\nshape: (3, 2)"' in dot and 'label="bias\\nshape: (2,)"' in dot
    # each edge joins two declared nodes, and every op node leads to the output
    declared = set(re.findall(r"^\s+(n\d+) \[", dot, re.M))
    edges = re.findall(r"(n\d+) -> (n\d+)", dot)
    assert edges and all(a in declared and b in declared for a, b in edges)
    assert len(edges) == len(declared) - 1          # a tree here: every node has one consumer


def test_to_dot_shows_saved_tensor_shapes():
    x = cinder.rand(2, 5, requires_grad=True)
    y = (x * x.t().t()).exp().sum()
    dot = cinder.autograd.graph.to_dot(y)
    assert "MulBackward0\\nself: (2, 5)\\nother: (2, 5)" in dot
    assert "ExpBackward0\\nresult: (2, 5)" in dot


def test_to_dot_renders_with_graphviz():
    graphviz = pytest.importorskip("graphviz")
    y, params = _graph(cinder)
    src = graphviz.Source(cinder.autograd.graph.to_dot(y, params=params))
    assert "ReluBackward0" in src.source
