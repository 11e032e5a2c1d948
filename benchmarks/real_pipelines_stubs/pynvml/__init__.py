"""A stand-in for `pynvml` (NVIDIA's management library bindings) on a machine without a GPU.

ignite's GpuInfo imports `pynvml.smi` first and only then checks torch.cuda.is_available(), which
ignite's TensorBoard-logger example catches ("no GPU: GPU information is not logged"); without
pynvml installed the import fails first, with an error the example does not catch. Importing
works; querying a device raises, as the real library does where no driver is loaded.
"""


class NVMLError(Exception):
    pass


def nvmlInit() -> None:
    raise NVMLError("NVML Shared Library Not Found (the benchmark's stand-in: no GPU here)")
