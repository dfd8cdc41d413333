"""torch.profiler and torch.autograd.profiler against PyTorch's.

Times differ between the two libraries (and between runs), so these tests compare structure:
the names of the recorded events and how they nest, input shapes, allocated bytes, the
table's header, columns, row counts and ordering, the schedule's step counting, and the Chrome
trace's layout. The fast path without a profiler is checked too: nothing is recorded and the
dispatch flag stays down.
"""

import gzip
import json
import os
import re
import warnings

import numpy as np
import pytest
import torch

import cinder
from cinder import _C
from cinder.autograd._profiler_recorder import Recorder

# Events PyTorch records for the model below that cinder does not, and why:
# - aten::linear runs one fused GEMM in cinder (ops/nn/linear.py), so the ops PyTorch's
#   composite linear calls inside (aten::t, aten::transpose, aten::as_strided, aten::addmm,
#   aten::expand, aten::copy_, aten::resolve_conj) are not separate calls, and no TBackward0
#   node exists (the AddmmBackward0 node takes the weight directly);
# - aten::relu, aten::cross_entropy_loss compute in one kernel each (no aten::clamp_min,
#   aten::log_softmax, aten::_log_softmax, aten::to, aten::nll_loss_nd, aten::nll_loss,
#   aten::nll_loss_forward inside);
# - the backward formulas run NumPy directly when no double-backward graph is wanted (no
#   aten::mm, aten::sum, aten::view, aten::fill_, aten::threshold_backward,
#   aten::nll_loss_backward, aten::_log_softmax_backward_data, aten::zero_ inside the nodes);
#   the engine seeds the root gradient without aten::ones_like/empty_like/empty_strided;
# - a leaf's AccumulateGrad keeps the fresh gradient itself (no aten::detach / detach);
# - SGD updates the parameters in place with NumPy (no aten::add_ inside the step).
NOT_RECORDED = {
    "aten::t", "aten::transpose", "aten::as_strided", "aten::addmm", "aten::expand",
    "aten::copy_", "aten::resolve_conj", "TBackward0", "autograd::engine::evaluate_function: "
    "TBackward0", "aten::clamp_min", "aten::log_softmax", "aten::_log_softmax", "aten::to",
    "aten::nll_loss_nd", "aten::nll_loss", "aten::nll_loss_forward", "aten::mm", "aten::sum",
    "aten::view", "aten::fill_", "aten::threshold_backward", "aten::nll_loss_backward",
    "aten::_log_softmax_backward_data", "aten::zero_", "aten::ones_like", "aten::empty_like",
    "aten::empty_strided", "aten::detach", "detach", "aten::add_", "[memory]",
}

# What a user of the tutorials sees in both: the block, the layers' ops, the backward nodes
# with the engine's ranges around them, the optimizer's step and zero_grad.
SEEN_IN_BOTH = {
    "model_inference", "aten::linear", "aten::relu", "aten::cross_entropy_loss",
    "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0",
    "autograd::engine::evaluate_function: ReluBackward0", "ReluBackward0",
    "autograd::engine::evaluate_function: NllLossBackward0", "NllLossBackward0",
    "autograd::engine::evaluate_function: LogSoftmaxBackward0", "LogSoftmaxBackward0",
    "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
    "torch::autograd::AccumulateGrad", "Optimizer.step#SGD.step",
    "Optimizer.zero_grad#SGD.zero_grad",
}

_X = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
_Y = np.array([0, 1, 2, 0, 1])


def _cpu_profile(lib, **kwargs):
    """``lib.profiler.profile`` over the CPU alone: on a machine with a GPU, PyTorch's default
    activities add CUDA runtime events (cudaDeviceSynchronize...) that cinder does not trace."""
    return lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs)


def _train_step(lib, **kwargs):
    """One profiled step of a Linear/ReLU/Linear classifier with SGD, on ``lib``."""
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = lib.tensor(_X), lib.tensor(_Y)
    prof_mod = lib.profiler
    with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], **kwargs) as prof:
        with prof_mod.record_function("model_inference"):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return prof


@pytest.fixture(scope="module")
def runs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {lib.__name__: _train_step(lib, record_shapes=True, profile_memory=True)
                for lib in (torch, cinder)}


def _names(prof):
    return {e.name for e in prof.events()}


def _parents(prof):
    out = {}
    for e in prof.events():
        out.setdefault(e.name, set()).add(e.cpu_parent.name if e.cpu_parent else None)
    return out


def test_event_names(runs):
    t, c = _names(runs["torch"]), _names(runs["cinder"])
    assert SEEN_IN_BOTH <= t and SEEN_IN_BOTH <= c
    assert c <= t, f"recorded by cinder only: {c - t}"
    assert t - c <= NOT_RECORDED, f"missing in cinder: {t - c - NOT_RECORDED}"


def test_nesting_and_counts(runs):
    tp, cp = _parents(runs["torch"]), _parents(runs["cinder"])
    for name in SEEN_IN_BOTH:
        assert cp[name] == tp[name], name
    count = {lib: {} for lib in runs}
    for lib, prof in runs.items():
        for e in prof.events():
            count[lib][e.name] = count[lib].get(e.name, 0) + 1
    for name in SEEN_IN_BOTH:
        assert count["cinder"][name] == count["torch"][name], name


def test_record_function_contains_its_ops(runs):
    for prof in runs.values():
        block = next(e for e in prof.events() if e.name == "model_inference")
        kids = [e.name for e in block.cpu_children]
        assert kids == ["aten::linear", "aten::relu", "aten::linear",
                        "aten::cross_entropy_loss"]
        for k in block.cpu_children:
            assert block.time_range.start <= k.time_range.start <= k.time_range.end \
                <= block.time_range.end
        assert block.cpu_time_total >= sum(k.cpu_time_total for k in block.cpu_children)
        assert block.is_user_annotation and block.scope == 7


def _by_name(prof, name):
    return [e for e in prof.events() if e.name == name]


def test_record_shapes(runs):
    for name in ("aten::linear", "AddmmBackward0", "ReluBackward0", "LogSoftmaxBackward0"):
        t = [e.input_shapes for e in _by_name(runs["torch"], name)]
        c = [e.input_shapes for e in _by_name(runs["cinder"], name)]
        assert c == t, name
    # cinder records the arguments passed (PyTorch every schema argument): the tensors agree
    t = _by_name(runs["torch"], "aten::cross_entropy_loss")[0].input_shapes
    c = _by_name(runs["cinder"], "aten::cross_entropy_loss")[0].input_shapes
    assert c == t[:2]


def test_memory(runs):
    for name in ("aten::linear", "aten::relu"):
        t = [e.cpu_memory_usage for e in _by_name(runs["torch"], name)]
        c = [e.cpu_memory_usage for e in _by_name(runs["cinder"], name)]
        assert c == t, name
    # the block allocated the layers' outputs and freed what nothing kept (same bytes freed)
    t = _by_name(runs["torch"], "model_inference")[0]
    c = _by_name(runs["cinder"], "model_inference")[0]
    assert c.self_cpu_memory_usage == t.self_cpu_memory_usage == -220
    assert all(e.cpu_memory_usage == 0 for e in _by_name(runs["cinder"], "Optimizer.step#SGD.step"))


def _table_lines(prof, **kw):
    return prof.key_averages().table(**kw).split("\n")


@pytest.mark.parametrize("memory", [False, True])
def test_table_layout(memory):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        profs = [_train_step(lib, profile_memory=memory) for lib in (torch, cinder)]
    t, c = (_table_lines(p, sort_by="cpu_time_total", row_limit=5) for p in profs)
    assert c[:3] == t[:3]                   # separator, column titles, separator
    assert len(c) == len(t) == 3 + 5 + 2 + 1
    assert c[8] == t[8] and c[-1] == t[-1] == ""
    assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", c[9])
    row = re.compile(r" *\S.* +\d+\.\d\d% +\d+\.\d{3}(us|ms|s) +\d+\.\d\d% +\d+\.\d{3}(us|ms|s)"
                     r" +\d+\.\d{3}(us|ms|s)" + (r" +-?\d+(\.\d\d)? [KMG]?B" * 2 if memory else "")
                     + r" +\d+  ")
    for line in c[3:8]:
        assert row.fullmatch(line), line
        assert len(line) == len(c[1])


@pytest.mark.parametrize("sort_by", ["cpu_time_total", "self_cpu_time_total", "count",
                                     "cpu_memory_usage", "self_cpu_memory_usage", "cpu_time"])
def test_table_sorted(runs, sort_by):
    avgs = runs["cinder"].key_averages()
    lines = avgs.table(sort_by=sort_by, row_limit=-1).split("\n")[3:-3]
    keys = [line[:55].strip() for line in lines]
    expect = sorted(avgs, key=lambda e: getattr(e, sort_by), reverse=True)
    assert keys == [(e.key if len(e.key) < 52 else e.key[:52] + "...") for e in expect]
    values = [getattr(e, sort_by) for e in expect]
    assert values == sorted(values, reverse=True)


def test_top_level_and_header(runs):
    text = runs["cinder"].key_averages().table(top_level_events_only=True, header="HEAD")
    lines = text.split("\n")
    assert lines[1] == "HEAD" and set(lines[0]) == {"="}
    assert lines[3] == "This report only display top-level ops statistics"
    names = {line[:55].strip() for line in lines[7:-3]}
    assert "model_inference" in names and "aten::linear" not in names
    t = runs["torch"].key_averages().table(top_level_events_only=True, header="HEAD")
    assert t.split("\n")[:6] == lines[:6]


def test_group_by_input_shape(runs):
    for lib, prof in runs.items():
        plain = {e.key: e for e in prof.key_averages()}
        assert plain["aten::linear"].count == 2 and plain["aten::linear"].input_shapes == ""
        grouped = [e for e in prof.key_averages(group_by_input_shape=True)
                   if e.key == "aten::linear"]
        assert [e.input_shapes for e in grouped] == [[[5, 4], [8, 4], [8]],
                                                      [[5, 8], [3, 8], [3]]], lib
        header = prof.key_averages(group_by_input_shape=True).table().split("\n")[1]
        assert header.rstrip().endswith("Input Shapes")


def test_averages_and_totals(runs):
    c = runs["cinder"]
    avg = {e.key: e for e in c.key_averages()}["aten::linear"]
    evts = _by_name(c, "aten::linear")
    assert avg.cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in evts))
    assert avg.cpu_time == pytest.approx(avg.cpu_time_total / 2)
    assert avg.self_cpu_memory_usage == sum(e.self_cpu_memory_usage for e in evts)
    total = c.events().total_average()
    assert total.key == "Total" and total.count == len(c.events())
    assert c.events().self_cpu_time_total == pytest.approx(
        sum(e.self_cpu_time_total for e in c.events()))
    assert repr(total).startswith("<FunctionEventAvg key=Total self_cpu_time=")
    assert repr(evts[0]).startswith("<FunctionEvent id=")


def _schedule_run(lib, steps, **sched):
    seen = []

    def ready(p):
        seen.append((p.step_num, sum(e.name == "ProfilerStep*" for e in p.events()),
                     sum(e.name == "aten::add" for e in p.events())))
    prof_mod = lib.profiler
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU],
                              schedule=prof_mod.schedule(**sched), on_trace_ready=ready) as p:
            for _ in range(steps):
                lib.ones(2) + 1
                p.step()
    # (the "Profiler clears events" warning is given once per process: left out here)
    return seen, sorted({str(x.message) for x in w if "clears events" not in str(x.message)})


@pytest.mark.parametrize("sched", [
    dict(wait=1, warmup=1, active=3, repeat=1),
    dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
    dict(wait=2, warmup=0, active=1),
    dict(wait=0, warmup=1, active=2, skip_first=3, skip_first_wait=1),
    dict(wait=1, warmup=2, active=3),
])
def test_schedule_steps(sched):
    for steps in (4, 8, 13):
        assert _schedule_run(cinder, steps, **sched) == _schedule_run(torch, steps, **sched)


def test_schedule_actions():
    for sched in (dict(wait=1, warmup=1, active=2, repeat=3, skip_first=2),
                  dict(wait=3, warmup=1, active=1, skip_first_wait=1)):
        fc, ft = cinder.profiler.schedule(**sched), torch.profiler.schedule(**sched)
        assert [fc(i).name for i in range(30)] == [ft(i).name for i in range(30)]
    for bad in (dict(wait=-1, warmup=0, active=1), dict(wait=0, warmup=0, active=0)):
        with pytest.raises(AssertionError) as ec:
            cinder.profiler.schedule(**bad)
        with pytest.raises(AssertionError) as et:
            torch.profiler.schedule(**bad)
        assert str(ec.value) == str(et.value)


def test_start_stop_without_context():
    p = cinder.profiler.profile()
    p.start()
    cinder.ones(3).mul(2)
    p.stop()
    assert "aten::mul" in _names(p)
    assert _C.FLAG.profiler is None and _C.FLAG.active == _flag_without_profiler()


def test_chrome_trace(runs, tmp_path):
    paths = {}
    for lib, prof in runs.items():
        paths[lib] = tmp_path / f"{lib}.json"
        prof.export_chrome_trace(str(paths[lib]))
    t, c = (json.loads(paths[lib].read_text()) for lib in ("torch", "cinder"))
    assert {"schemaVersion", "traceEvents", "deviceProperties", "displayTimeUnit"} <= set(c)
    assert c["schemaVersion"] == t["schemaVersion"]
    xs = [e for e in c["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in xs} == _names(runs["cinder"]) - {"[memory]"}
    by_name = {e["name"]: e for e in xs}
    block = by_name["model_inference"]
    assert block["cat"] == "user_annotation" and by_name["aten::relu"]["cat"] == "cpu_op"
    for e in xs:
        assert set(e) >= {"ph", "name", "pid", "tid", "ts", "dur", "args", "cat"}
    # microseconds, as the events report them
    event = _by_name(runs["cinder"], "model_inference")[0]
    assert block["dur"] == pytest.approx(event.cpu_time_total, rel=1e-6)
    relu = by_name["aten::relu"]
    assert block["ts"] <= relu["ts"] and relu["ts"] + relu["dur"] <= block["ts"] + block["dur"]
    assert relu["args"]["Input Dims"][0] == [5, 8]


def test_tensorboard_trace_handler(tmp_path):
    for gz in (False, True):
        d = tmp_path / f"tb{gz}"
        sched = cinder.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
        handler = cinder.profiler.tensorboard_trace_handler(str(d), "worker0", use_gzip=gz)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # "Profiler clears events at the end of..."
            with cinder.profiler.profile(schedule=sched, on_trace_ready=handler) as p:
                for _ in range(5):
                    cinder.ones(1) + 1
                    p.step()
        files = sorted(os.listdir(d))
        assert len(files) == 2
        suffix = r"\.pt\.trace\.json" + (r"\.gz" if gz else "")
        assert all(re.fullmatch(r"worker0\.\d+" + suffix, f) for f in files)
        opener = gzip.open if gz else open
        with opener(d / files[0], "rt") as f:
            trace = json.load(f)
        assert any(e["name"] == "ProfilerStep#1" for e in trace["traceEvents"])


def _legacy(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = lib.ones(2, 3, requires_grad=True)
        with lib.autograd.profiler.profile(use_cuda=False, record_shapes=True) as prof:
            with lib.autograd.profiler.record_function("outer"):
                y = (x * 2).sum()
            y.backward()
    return prof


def test_legacy_autograd_profiler():
    t, c = _legacy(torch), _legacy(cinder)
    assert type(c.function_events).__name__ == "EventList"
    assert isinstance(c.function_events, cinder.autograd.profiler_util.EventList)
    outer = [e for e in c.function_events if e.name == "outer"][0]
    assert [k.name for k in outer.cpu_children] == ["aten::mul", "aten::sum"]
    t_outer = [e for e in t.function_events if e.name == "outer"][0]
    assert [k.name for k in t_outer.cpu_children] == ["aten::mul", "aten::sum"]
    assert [k.input_shapes[0] for k in outer.cpu_children] == [[2, 3], [2, 3]]
    for p in (t, c):
        assert p.self_cpu_time_total > 0 and p.total_average().key == "Total"
        assert str(p).split("\n")[1] == p.table().split("\n")[1]
        assert "MulBackward0" in {e.key for e in p.key_averages()}


def test_legacy_errors_and_warnings():
    for lib in (torch, cinder):
        p = lib.autograd.profiler.profile()
        assert len(p.key_averages()) == 0 and repr(p) == "[]" and p.self_cpu_time_total == 0
        with lib.autograd.profiler.profile() as running:
            assert repr(running) == "<unfinished torch.autograd.profile>"
        with pytest.raises(AssertionError, match="Profiler must be initialized"):
            lib.profiler.profile().events()
        with pytest.warns(FutureWarning, match="use_cuda"):
            if lib.cuda.is_available():
                lib.autograd.profiler.profile(use_cuda=True)
            else:
                with pytest.warns(UserWarning, match="CUDA is not available"):
                    lib.autograd.profiler.profile(use_cuda=True)
        with lib.autograd.profiler.profile(enabled=False) as q:
            lib.ones(1) + 1
        assert q is None
        with lib.autograd.profiler.emit_itt():
            lib.ones(1) + 1


@pytest.mark.skipif(cinder.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_cuda_activity_without_gpu():
    for lib in (torch, cinder):
        acts = [lib.profiler.ProfilerActivity.CPU, lib.profiler.ProfilerActivity.CUDA]
        with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
            with lib.profiler.profile(activities=acts) as p:
                lib.ones(2).add(1)
        top = [e.name for e in p.events() if e.cpu_parent is None]
        assert top == ["aten::ones", "aten::add"] and p.use_device == "cuda"
        assert "Self CUDA" not in p.key_averages().table()
        assert lib.profiler.supported_activities() == {lib.profiler.ProfilerActivity.CPU}
    expected = type(_torch_error(torch))
    with pytest.raises(expected, match="Torch not compiled with CUDA enabled"):
        with cinder.autograd.profiler.emit_nvtx():
            pass


def _torch_error(lib):
    try:
        with lib.autograd.profiler.emit_nvtx():
            pass
    except Exception as e:       # noqa: BLE001  (whatever PyTorch raises is the reference)
        return e
    raise AssertionError("emit_nvtx entered without CUDA")


def test_record_function_decorator_and_nesting():
    @cinder.profiler.record_function("helper")
    def helper(t):
        return t.exp()

    with cinder.profiler.profile() as p:
        with cinder.profiler.record_function("outer", "some args") as rf:
            helper(cinder.ones(2))
    assert rf.args == "some args"
    names = {e.name: e for e in p.events()}
    assert names["helper"].cpu_parent is names["outer"]
    assert names["aten::exp"].cpu_parent is names["helper"]
    assert names["aten::ones"].cpu_parent is names["outer"]


def _flag_without_profiler():
    """What the dispatch flag is with no profiler: on while a mode is pushed or once any
    ``__torch_function__`` subclass was defined in this process (other tests define some)."""
    return bool(_C.FLAG.modes or _C._SUBCLASSES[0])


def test_nothing_recorded_outside_a_profile():
    a, b = cinder.ones(3), cinder.ones(3)
    rec = Recorder()
    rec.start()
    assert _C.FLAG.active and _C.FLAG.profiler is rec
    rec.stop()
    assert _C.FLAG.profiler is None and _C.FLAG.active == _flag_without_profiler()
    a + b
    cinder.add(a, b)
    cinder.nn.functional.relu(a)
    assert rec.ranges == []
    with cinder.profiler.profile() as p:
        a.mul(b)
    a.sub(b)
    assert [e.name for e in p.events()] == ["aten::mul"]


def test_error_inside_an_op_closes_its_range():
    with cinder.profiler.profile() as p:
        with pytest.raises(RuntimeError):
            cinder.ones(2, 3).mm(cinder.ones(2, 3))
        cinder.ones(1).neg()
    evts = {e.name: e for e in p.events()}
    assert evts["aten::mm"].cpu_children == [] and evts["aten::neg"].cpu_parent is None
    assert _C.FLAG.profiler is None


def test_modes_still_see_calls_while_profiling():
    seen = []

    class Spy(cinder.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with cinder.profiler.profile() as p:
        with Spy():
            cinder.ones(2).add(1)
    assert "add" in seen and "aten::add" in _names(p)


def _operators(lib):
    t = lib.arange(6.).view(2, 3)
    with _cpu_profile(lib) as p:
        t + 1
        t * t
        _ = -t
        t[0]
        t[:, 1:]
        1 - t
        t[t > 1]
        t[None]
        t @ t.T
        2 / t
    return [e.name for e in p.events() if e.cpu_parent is None]


def test_operators_and_indexing_names():
    names, expect = _operators(cinder), _operators(torch)
    # ``2 / t`` records aten::reciprocal with its aten::mul inside (PyTorch: one after the
    # other).
    assert expect[-4:] == ["aten::numpy_T", "aten::matmul", "aten::reciprocal", "aten::mul"]
    assert names == expect[:-1]


def _properties(lib):
    t, c = lib.ones(2, 3), lib.ones(2, 2, dtype=lib.complex64)
    with _cpu_profile(lib) as p:
        for attr in ("T", "mT", "shape", "grad", "device", "is_leaf", "dtype"):
            getattr(t, attr)
        for attr in ("H", "mH", "real", "imag", "data"):
            getattr(c, attr)
    return [e.name for e in p.events() if e.cpu_parent is None]


def test_property_reads():
    assert _properties(cinder) == _properties(torch) == [
        "aten::numpy_T", "aten::mT", "aten::matrix_H", "aten::mH", "aten::real", "aten::imag"]


def _flops_run(lib):
    rng = np.random.default_rng(1)
    a, b = (lib.tensor(rng.standard_normal(s, dtype=np.float32)) for s in ((8, 16), (16, 4)))
    c = lib.tensor(rng.standard_normal(4, dtype=np.float32))
    x, y = (lib.tensor(rng.standard_normal(s, dtype=np.float32)) for s in ((2, 8, 16),
                                                                          (2, 16, 4)))
    with _cpu_profile(lib, with_flops=True) as p:
        a.mm(b)
        lib.addmm(c, a, b)
        lib.bmm(x, y)
        a * a
        a + a
    return p


def test_with_flops():
    t, c = _flops_run(torch), _flops_run(cinder)
    counted = ("aten::mm", "aten::addmm", "aten::bmm", "aten::mul", "aten::add")
    for name in counted:
        assert [e.flops for e in _by_name(c, name)] == [e.flops for e in _by_name(t, name)]
    assert c.key_averages().table().split("\n")[1].endswith("Total FLOPs  ")
    assert t.key_averages().table().split("\n")[1].endswith("Total FLOPs  ")


def test_with_stack(tmp_path):
    # cinder attaches the calling Python frames to each op (innermost first), as PyTorch's
    # legacy profiler did; PyTorch 2.13 with Kineto records Python function events instead.
    m = cinder.nn.Linear(2, 2)
    with cinder.profiler.profile(with_stack=True) as p:
        m(cinder.ones(1, 2))
    linear = _by_name(p, "aten::linear")[0]
    assert re.search(r"nn/modules/linear\.py\(\d+\): forward$", linear.stack[0])
    assert any(f.endswith(": test_with_stack") for f in linear.stack)
    assert not any("_dispatch.py" in f or "_profiler_recorder" in f for f in linear.stack)
    grouped = p.key_averages(group_by_stack_n=1).table()
    assert "Source Location" in grouped.split("\n")[1]
    p.export_stacks(str(tmp_path / "stacks.txt"))
    lines = (tmp_path / "stacks.txt").read_text().splitlines()
    assert any(line.split(";")[-1].split(" ")[0].endswith(":_forward") for line in lines)
    assert all(re.fullmatch(r"\S+ \d+", line) for line in lines)


def _freed_outside(lib):
    with _cpu_profile(lib, profile_memory=True) as p:
        t = lib.ones(100)
        del t
    return p


def test_memory_freed_outside_ops():
    t, c = _freed_outside(torch), _freed_outside(cinder)
    for name in ("aten::ones", "[memory]"):
        assert [e.cpu_memory_usage for e in _by_name(c, name)] == \
            [e.cpu_memory_usage for e in _by_name(t, name)]
    assert {e.key for e in c.key_averages()} >= {"[memory]"}


def _accumulated(lib, acc):
    counts = []
    sched = lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _cpu_profile(lib, schedule=sched, acc_events=acc, on_trace_ready=lambda p:
                                  counts.append(len(_by_name(p, "aten::add")))) as p:
            for _ in range(9):
                lib.ones(1).add(1)
                p.step()
    return counts


def test_acc_events():
    for acc in (False, True):
        assert _accumulated(cinder, acc) == _accumulated(torch, acc)


def _top_names(prof):
    return [e.name for e in prof.events() if e.cpu_parent is None]


@pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
def test_nested_profiles(lib, capfd):
    # PyTorch has one profiling session: an inner profile takes it over (what the outer one
    # recorded is lost), nothing records after the inner one ends, and the outer one's end
    # finds no session (a warning on stderr) and reports no events
    with lib.profiler.profile() as outer:
        lib.ones(1)
        with lib.profiler.profile() as inner:
            lib.zeros(1)
        lib.empty(1)
    assert _top_names(outer) == [] and len(outer.key_averages()) == 0
    assert _top_names(inner) == ["aten::zeros"]
    assert capfd.readouterr().err.count("no active profiling session found") == 1
    # stopped out of order: the first stop ends the session and gets what it recorded
    a, b = lib.profiler.profile(), lib.profiler.profile()
    a.start()
    lib.ones(1)
    b.start()
    lib.zeros(1)
    a.stop()
    lib.empty(1)
    b.stop()
    assert (_top_names(a), _top_names(b)) == (["aten::zeros"], [])
    assert capfd.readouterr().err.count("no active profiling session found") == 1
    if lib is cinder:
        assert _C.FLAG.profiler is None and _C.FLAG.active == _flag_without_profiler()
    with lib.profiler.profile() as fresh:       # a later profile records as usual
        lib.ones(1)
    assert _top_names(fresh) == ["aten::ones"]


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_table_time_unit(runs, unit):
    for prof in runs.values():
        lines = prof.key_averages().table(time_unit=unit, row_limit=4).split("\n")
        times = re.findall(r"\d+\.\d{3}(s|ms|us)\b", "\n".join(lines[3:7] + lines[8:9]))
        assert len(times) == 4 * 3 + 1 and set(times) == {unit}


def test_setitem_and_getitem_names():
    t = cinder.zeros(3)
    with cinder.profiler.profile() as p:
        t[0] = 1
        t[1:] = t[:2].clone()
        t[[0, 2]]
    top = [e.name for e in p.events() if e.cpu_parent is None]
    assert top == ["aten::fill_", "aten::slice", "aten::clone", "aten::copy_", "aten::index"]


def _functional_calls(lib):
    F = lib.nn.functional
    x = lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    calls = {
        "relu_inplace": lambda: F.relu(x.clone(), inplace=True), "relu": lambda: F.relu(x),
        "softmax": lambda: F.softmax(x, dim=1), "log_softmax": lambda: F.log_softmax(x, dim=1),
        "layer_norm": lambda: F.layer_norm(x, (6,)), "gelu": lambda: F.gelu(x),
        "dropout_eval": lambda: F.dropout(x, training=False), "silu": lambda: F.silu(x),
        "dropout": lambda: F.dropout(x, 0.5), "softsign": lambda: F.softsign(x),
        "hardtanh_inplace": lambda: F.hardtanh(x.clone(), inplace=True),
        "pad": lambda: F.pad(x, (1, 1)), "leaky": lambda: F.leaky_relu(x),
        "elu": lambda: F.elu(x), "hardtanh": lambda: F.hardtanh(x),
        "sigmoid": lambda: F.sigmoid(x), "tanh": lambda: F.tanh(x),
        "bce": lambda: F.binary_cross_entropy(lib.sigmoid(x), lib.sigmoid(x)),
    }
    out = {}
    for key, f in calls.items():
        with _cpu_profile(lib) as p:
            f()
        out[key] = [e.name for e in p.events() if e.cpu_parent is None]
    return out


def test_functional_names():
    # A Python-level nn.functional function (F.relu, F.softsign...) is not an operator in
    # PyTorch: only the ops it calls are recorded (F.relu(inplace=True) is aten::relu_,
    # F.dropout is aten::dropout). Not compared here: F.mse_loss (PyTorch
    # records an aten::broadcast_tensors first), F.normalize (cinder's norm is aten::norm,
    # PyTorch's aten::linalg_vector_norm), lib.tensor(...) (PyTorch: aten::empty, aten::to,
    # aten::lift_fresh, aten::detach_; cinder: aten::tensor).
    assert _functional_calls(cinder) == _functional_calls(torch)


def _fwd_bwd_pairs(lib, tmp_path):
    x = lib.ones(3, requires_grad=True)
    with _cpu_profile(lib) as p:
        (x * 2).relu().exp().sum().backward()
    forward = {e.sequence_nr: e.name for e in p.events()
               if e.sequence_nr >= 0 and e.name.startswith("aten::")}
    pairs = {(forward[e.sequence_nr], e.name) for e in p.events()
             if e.scope == 1 and e.sequence_nr in forward}
    path = tmp_path / f"{lib.__name__}.json"
    p.export_chrome_trace(str(path))
    flows = [e for e in json.loads(path.read_text())["traceEvents"] if e.get("cat") == "fwdbwd"]
    return pairs, sorted(e["ph"] for e in flows)


def test_forward_backward_links(tmp_path):
    pairs, flows = _fwd_bwd_pairs(cinder, tmp_path)
    assert pairs == {("aten::mul", "MulBackward0"), ("aten::relu", "ReluBackward0"),
                     ("aten::exp", "ExpBackward0"), ("aten::sum", "SumBackward0")}
    assert (pairs, flows) == _fwd_bwd_pairs(torch, tmp_path)


def test_experimental_config_accepted():
    assert cinder.profiler._ExperimentalConfig(verbose=True).verbose is True
    tops = []
    for lib in (torch, cinder):
        with _cpu_profile(lib, experimental_config=lib.profiler._ExperimentalConfig(
                verbose=True)) as p:
            lib.ones(1)
        tops.append({e.name for e in p.events() if e.cpu_parent is None})
    assert tops[0] == tops[1] == {"aten::ones"}


@pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
def test_optimizer_ranges_are_record_function_ranges(lib):
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.1)
    p.grad = lib.ones(2)
    plain = lib.optim.Optimizer.profile_hook_step(lambda self: "done")
    with lib.profiler.profile() as prof:
        opt.step()
        opt.zero_grad()
        assert plain(opt) == "done"
    ranges = [e for e in prof.events() if e.name.startswith("Optimizer.")]
    assert [e.name for e in ranges] == ["Optimizer.step#SGD.step",
                                        "Optimizer.zero_grad#SGD.zero_grad",
                                        "Optimizer.step#SGD.step"]
    assert [e.cpu_parent for e in ranges] == [None] * 3
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9])
