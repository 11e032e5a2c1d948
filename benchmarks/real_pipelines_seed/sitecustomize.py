"""Seed torch, numpy and random when the interpreter starts, for scripts that never seed.

Put on PYTHONPATH by benchmarks/real_pipelines.py for configurations with `seed=True`, in both
runs alike, so that the plain run and the run under graddoctor can be compared. A script that
seeds on its own later simply reseeds.
"""

import os
import random

_seed = int(os.environ.get("GD_BENCH_SEED", "0"))
random.seed(_seed)
try:
    import numpy

    numpy.random.seed(_seed)
except ImportError:
    pass
try:
    import torch

    torch.manual_seed(_seed)
except ImportError:
    pass

# Pillow 10 removed Image.ANTIALIAS (Image.LANCZOS since Pillow 2.7), which older tutorials still
# call; GD_BENCH_PIL_ANTIALIAS=1 gives it back, as the Pillow they were written for had it.
if os.environ.get("GD_BENCH_PIL_ANTIALIAS"):
    from PIL import Image

    if not hasattr(Image, "ANTIALIAS"):
        Image.ANTIALIAS = Image.LANCZOS

# A script written for a GPU only (`.cuda()` and `torch.cuda.FloatTensor` whatever
# torch.cuda.is_available() says): GD_BENCH_CUDA_ON_CPU=1 makes both mean the CPU, as a stand-in
# for the GPU this machine lacks. Only where CUDA is absent; the same in both runs.
if os.environ.get("GD_BENCH_CUDA_ON_CPU"):
    import torch

    if not torch.cuda.is_available():
        torch.Tensor.cuda = lambda self, *args, **kwargs: self
        torch.cuda.FloatTensor = torch.FloatTensor
        torch.cuda.LongTensor = torch.LongTensor
