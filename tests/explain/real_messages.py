"""Error messages as users paste them into forum threads and issues, with the thread's cause.

Test data for tests/explain/test_real_messages.py. Each entry: the text as a user
pasted it (a bare message, the exception line, or a traceback), the finding code
the cause belongs to, words the explanation must contain to state the thread's
cause, and fixes it must never print because they would make that program worse.
Wordings span PyTorch 0.4 to 2.x: users paste what their version printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pasted:
    text: str
    code: str
    cause: tuple[str, ...]  # each must appear (case-insensitive) in message + hint
    never: tuple[str, ...] = field(default=())  # fixes that would make this program worse
    thread: str = ""  # what the thread found, in a few words


DATALOADER_WORKER = '''Traceback (most recent call last):
  File "train.py", line 58, in <module>
    for images, masks in train_loader:
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 630, in __next__
    data = self._next_data()
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/__init__.py", line 694, in reraise
    raise exception
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop
    data = fetcher.fetch(index)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py", line 141, in collate_tensor_fn
    return torch.stack(batch, 0, out=out)
RuntimeError: stack expects each tensor to be equal size, but got [3, 256, 256] at entry 0 and [3, 256, 341] at entry 2
'''

DATALOADER_WORKER_KEYERROR = '''Traceback (most recent call last):
  File "main.py", line 77, in <module>
    for batch in loader:
  File "/opt/conda/lib/python3.8/site-packages/torch/utils/data/_utils/__init__.py", line 434, in reraise
    raise exception
KeyError: Caught KeyError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/opt/conda/lib/python3.8/site-packages/torch/utils/data/_utils/worker.py", line 287, in _worker_loop
    data = fetcher.fetch(index)
  File "/home/user/project/dataset.py", line 31, in __getitem__
    label = self.df.loc[idx, "label"]
KeyError: 5120
'''

DATA_PARALLEL = '''Traceback (most recent call last):
  File "train.py", line 112, in <module>
    loss.backward()
  File "/usr/local/lib/python3.8/dist-packages/torch/_tensor.py", line 255, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
  File "/usr/local/lib/python3.8/dist-packages/torch/autograd/__init__.py", line 141, in backward
    grad_tensors_ = _make_grads(tensors, grad_tensors_)
  File "/usr/local/lib/python3.8/dist-packages/torch/autograd/__init__.py", line 50, in _make_grads
    raise RuntimeError("grad can be implicitly created only for scalar outputs")
RuntimeError: grad can be implicitly created only for scalar outputs
'''

DATA_PARALLEL_MODEL = '''Traceback (most recent call last):
  File "train_gpt.py", line 88, in <module>
    outputs = model(input_ids, labels=labels)
  File "/usr/local/lib/python3.8/dist-packages/torch/nn/parallel/data_parallel.py", line 168, in forward
    outputs = self.parallel_apply(replicas, inputs, kwargs)
  File "train_gpt.py", line 90, in <module>
    outputs.loss.backward()
  File "/usr/local/lib/python3.8/dist-packages/torch/autograd/__init__.py", line 50, in _make_grads
    raise RuntimeError("grad can be implicitly created only for scalar outputs")
RuntimeError: grad can be implicitly created only for scalar outputs
'''

GAN_INPLACE = '''Traceback (most recent call last):
  File "dcgan.py", line 231, in <module>
    errG.backward()
  File "/usr/local/lib/python3.7/dist-packages/torch/tensor.py", line 245, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [512, 512, 4, 4]] is at version 2; expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).
'''

MESSAGES: list[Pasted] = [
    # --- memory ---------------------------------------------------------------------------------
    Pasted("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 11.17 GiB total capacity; "
           "9.45 GiB already allocated; 1.19 GiB free; 9.68 GiB reserved in total by PyTorch)",
           "GD207", ("out of memory", "batch size", "graph"), thread="batch too large, or a loss kept with its graph"),
    Pasted("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
           "7.79 GiB of which 14.31 MiB is free. Including non-PyTorch memory, this process has 7.77 GiB memory in "
           "use. Of the allocated memory 7.45 GiB is allocated by PyTorch, and 129.14 MiB is reserved by PyTorch but "
           "unallocated.", "GD207", ("out of memory", "no_grad"), thread="evaluation without no_grad"),
    Pasted("RuntimeError: CUDA error: out of memory", "GD207", ("out of memory",)),
    # --- dtypes -----------------------------------------------------------------------------------
    Pasted("RuntimeError: mat1 and mat2 must have the same dtype", "GD602", ("dtype", "float64")),
    Pasted("RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float", "GD602",
           ("Double", "float()")),
    Pasted("RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'target' "
           "in call to _thnn_nll_loss_forward", "GD602", ("long",), never=("y.float()",)),
    Pasted("RuntimeError: Expected object of scalar type Float but got scalar type Double for argument #2 'mat2' "
           "in call to _th_mm", "GD602", ("Double", ".float()")),
    Pasted("RuntimeError: expected Double tensor (got Float tensor)", "GD602", ("Double", "Float")),
    Pasted("RuntimeError: Found dtype Double but expected Float", "GD602", ("float()",), never=(".double()",)),
    Pasted("RuntimeError: Found dtype Float but expected Double", "GD602", ("float64", "Double"),
           never=("y.float()",), thread="the model was made float64 (model.double())"),
    Pasted("RuntimeError: expected scalar type Half but found Float", "GD602", ("autocast", "half"),
           never=("`.float()`", "x.float()")),
    Pasted("RuntimeError: expected scalar type Float but found Half", "GD602", ("autocast",)),
    Pasted("RuntimeError: expected scalar type Float but found Double", "GD602", ("Double", ".float()")),
    Pasted("RuntimeError: expected scalar type Double but found Float", "GD602", ("Double",),
           never=("x.float()",)),
    Pasted("RuntimeError: expected scalar type Long but found Float", "GD602", ("long",)),
    Pasted("RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be "
           "the same", "GD602", ("Half", "autocast")),
    Pasted("ValueError: Attempting to unscale FP16 gradients.", "GD602", ("float16", "autocast"),
           thread="model.half() with GradScaler"),
    Pasted("RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: "
           "Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)",
           "GD602", ("long()",)),
    Pasted("RuntimeError: result type Float can't be cast to the desired output type Long", "GD602", ("float()",)),
    Pasted("RuntimeError: Only Tensors of floating point and complex dtype can require gradients", "GD602",
           ("float",)),
    # --- shapes -----------------------------------------------------------------------------------
    Pasted("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x9216 and 4608x128)", "GD601",
           ("in_features",)),
    Pasted("RuntimeError: size mismatch, m1: [64 x 784], m2: [400 x 120] at /pytorch/aten/src/TH/generic/THTensorMath.cpp:41",
           "GD601", ("784", "in_features")),
    Pasted("RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and "
           "[3, 224, 336] at entry 3", "GD601", ("same size", "resize", "collate_fn")),
    Pasted(DATALOADER_WORKER, "GD601", ("DataLoader worker", "resize")),
    Pasted("RuntimeError: Caught RuntimeError in DataLoader worker process 0.", "GD601",
           ("num_workers=0", "Original Traceback")),
    Pasted(DATALOADER_WORKER_KEYERROR, "GD601", ("num_workers=0", "__getitem__", "KeyError")),
    # --- DataLoader workers that died without a Python error ---------------------------------------
    Pasted("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that "
           "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
           "GD606", ("shared memory", "--shm-size"), thread="Docker's 64 MB /dev/shm"),
    Pasted("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
           "memory (shm).", "GD606", ("shared memory", "--shm-size")),
    Pasted("RuntimeError: DataLoader worker (pid 31337) is killed by signal: Killed.", "GD606",
           ("out-of-memory", "fewer workers"), never=("--shm-size",), thread="host RAM: dataset list copied per worker"),
    Pasted("RuntimeError: DataLoader worker (pid 812) is killed by signal: Segmentation fault.", "GD606",
           ("native code", "num_workers=0", "cv2.setNumThreads(0)"), thread="OpenCV threads in a forked worker"),
    Pasted("RuntimeError: DataLoader worker (pid(s) 20544, 20545) exited unexpectedly", "GD606",
           ("num_workers=0", "memory")),
    Pasted("RuntimeError: DataLoader timed out after 60 seconds", "GD606", ("hangs", "spawn")),
    Pasted("ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 512])",
           "GD601", ("batch", "drop_last", "eval()")),
    Pasted("RuntimeError: multi-target not supported at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:15",
           "GD601", ("(N,)",)),
    Pasted("RuntimeError: 0D or 1D target tensor expected, multi-target not supported", "GD601", ("(N,)",)),
    Pasted("ValueError: Target size (torch.Size([1, 3, 256, 256])) must be the same as input size "
           "(torch.Size([1, 1, 256, 256]))", "GD601", ("RGB", "convert(\"L\")"), never=("squeeze(1)",),
           thread="masks loaded as RGB images"),
    Pasted("ValueError: Target size (torch.Size([16])) must be the same as input size (torch.Size([16, 1]))",
           "GD601", ("squeeze(1)",)),
    Pasted("ValueError: Using a target size (torch.Size([32])) that is different to the input size "
           "(torch.Size([32, 1])). This will likely lead to incorrect results due to broadcasting.",
           "GD601", ("squeeze(1)",)),
    Pasted("RuntimeError: Expected input batch_size (32) to match target batch_size (64).", "GD601", ("view",)),
    Pasted("RuntimeError: Given groups=1, weight of size [64, 3, 3, 3], expected input[16, 224, 224, 3] to have "
           "3 channels, but got 224 channels instead", "GD601", ("permute(0, 3, 1, 2)",)),
    Pasted("RuntimeError: Expected 4-dimensional input for 4-dimensional weight [32, 1, 5, 5], but got "
           "3-dimensional input of size [1, 28, 28] instead", "GD601", ("batch dimension", "unsqueeze(0)")),
    Pasted("RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [64, 784]",
           "GD601", ("view(", "channels")),
    Pasted("RuntimeError: shape '[-1, 400]' is invalid for input of size 9216", "GD601", ("9216", "flatten")),
    Pasted("RuntimeError: The size of tensor a (10) must match the size of tensor b (32) at non-singleton "
           "dimension 1", "GD601", ("broadcast",)),
    # --- targets ----------------------------------------------------------------------------------
    Pasted("IndexError: Target 192 is out of bounds.", "GD604", ("pixel", "mask"), never=("y - 1", "193 outputs"),
           thread="segmentation mask with 0-255 pixel values"),
    Pasted("IndexError: Target 255 is out of bounds.", "GD604", ("ignore_index=255",), never=("y - 1",),
           thread="boundary pixels labelled 255 in VOC masks"),
    Pasted("IndexError: Target -1 is out of bounds.", "GD604", ("ignore_index=-1",), never=("y - 1",),
           thread="-1 used as an ignore label"),
    Pasted("IndexError: Target 10 is out of bounds.", "GD604", ("from 1", "y - 1")),
    Pasted("RuntimeError: CUDA error: device-side assert triggered", "GD604", ("CUDA_LAUNCH_BLOCKING",)),
    Pasted("IndexError: index out of range in self", "GD604", ("num_embeddings",)),
    # --- devices ----------------------------------------------------------------------------------
    Pasted("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
           "cuda:0 and cpu!", "GD603", ("to(device)",)),
    Pasted("RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same",
           "GD603", ("model.to(device)",)),
    Pasted("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
           "same or input should be a MKLDNN tensor and weight is a dense tensor", "GD603", ("x.to(device)",)),
    Pasted("RuntimeError: Expected object of device type cuda but got device type cpu for argument #1 'self' in "
           "call to _th_index_select", "GD603", ("to(device)",)),
    Pasted("RuntimeError: Expected object of backend CPU but got backend CUDA for argument #2 'weight'",
           "GD603", ("to(device)",)),
    Pasted("TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
           "host memory first.", "GD603", (".cpu()",)),
    # --- autograd ---------------------------------------------------------------------------------
    Pasted("AttributeError: 'float' object has no attribute 'backward'", "GD101", (".item()",)),
    Pasted("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn", "GD102",
           ("grad_fn",)),
    Pasted("RuntimeError: grad can be implicitly created only for scalar outputs", "GD103", ("mean()",)),
    Pasted(DATA_PARALLEL, "GD103", ("mean()",)),
    Pasted(DATA_PARALLEL_MODEL, "GD103", ("DataParallel", "mean()"), thread="DataParallel gathers one loss per GPU"),
    Pasted("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
           "after they have already been freed). Saved intermediate values of the graph are freed when you call "
           ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
           "a second time or if you need to access saved tensors after calling backward.", "GD107", ("detach",)),
    Pasted(GAN_INPLACE, "GD108", ("optimizer.step()", "[512, 512, 4, 4]"),
           thread="opt_D.step() between D's forward on fake and errG.backward()"),
    Pasted("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.FloatTensor [64, 128]], which is output 0 of ReluBackward0, is at version 1; "
           "expected version 0 instead.", "GD108", ("ReluBackward0", "inplace=True")),
    Pasted("RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.", "GD109",
           ("no_grad",)),
    Pasted("RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to "
           "get a normal tensor and use it in autograd.", "GD112", ("inference_mode",)),
    Pasted("RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.", "GD302",
           ("nan",)),
    # --- setup ------------------------------------------------------------------------------------
    Pasted("ValueError: optimizer got an empty parameter list", "GD605", ("parameters()",)),
    Pasted("ValueError: can't optimize a non-leaf Tensor", "GD104", ("leaf",)),
]
