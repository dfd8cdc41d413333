"""Rows for cinder/nn/modules/container.py (containers built from layers of this area)."""


def rows(M, Arg, floats, ints):
    def seq(lib):
        return [lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2)]
    return [
        M("Sequential", Arg(lambda lib: lib.nn.Linear(4, 3), "Linear(4,3)"),
          Arg(lambda lib: lib.nn.Tanh(), "Tanh"),
          Arg(lambda lib: lib.nn.Linear(3, 2), "Linear(3,2)"), inputs=floats((5, 4))),
        M("Sequential", Arg(lambda lib: __import__("collections").OrderedDict(
            fc=lib.nn.Linear(4, 3), act=lib.nn.ReLU()), "OrderedDict"),
          inputs=floats((5, 4)), desc="named"),
        M("ModuleList", Arg(seq, "[Linear,ReLU,Linear]"), inputs=None),
        M("ModuleDict", Arg(lambda lib: {"b": lib.nn.Linear(2, 2), "a": lib.nn.ReLU()}, "dict"),
          inputs=None),
        M("ParameterList", Arg(lambda lib: [lib.nn.Parameter(lib.randn(2, 3)), lib.ones(4)],
                               "[P,T]"), inputs=None),
        M("ParameterDict", Arg(lambda lib: {"w": lib.nn.Parameter(lib.randn(2)),
                                            "b": lib.zeros(3)}, "dict"), inputs=None),
    ]
