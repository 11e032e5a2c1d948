"""What deep mode's recorder notes, one kind of op per module.

The recorder's `__torch_function__` (recorder.py) looks at each op once: it scans the
inputs for `requires_grad` and taint, then hands the op to the tracker of its kind:

- cuts.py: ops that end autograd history (detach, .data, .item(), no_grad...)
- frozen.py: `requires_grad` set by hand (a parameter frozen, a cut's copy revived)
- grad_mode.py: the user's no_grad / inference_mode regions
- round_trips.py: numbers, arrays and lists made from tensors, and tensors rebuilt from them
- edits.py: in-place edits of tensors autograd needs, `.data` writes
- zeroing.py: ops that give a zero gradient (GD111's causes)
- non_finite.py: the op that made the first NaN/Inf (escalated windows only)
- inference.py: inference tensors, for autograd's "Inference tensors" error
"""
