"""The LSTM and GPT cases of ``bench/bench_nn.py`` (kept as a script for the commands in
bench/RESULTS.md): ``python bench/bench_nn_seq.py [lstm] [gpt] [--wall]``."""

import sys

from bench_nn import main

if __name__ == "__main__":
    flags = [a for a in sys.argv[1:] if a.startswith("-")]
    names = [a for a in sys.argv[1:] if not a.startswith("-")]
    main((names or ["lstm", "gpt"]) + flags)
