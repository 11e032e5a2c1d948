"""What the numerics know about optimizer classes, by name: which ones rescale each gradient element."""

from __future__ import annotations

# Optimizers whose step moves each weight by about `lr`, whatever the gradient's size
# (the gradient is divided by its own running RMS, or only its sign is used). Adadelta is
# not one: its `lr` (1.0 by default) scales a ratio of running averages.
ADAPTIVE = frozenset({"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "SparseAdam",
                      "Adafactor", "Lion", "FusedAdam", "Adam8bit", "AdamW8bit", "PagedAdamW"})

# Optimizers whose step does not scale with the raw gradient's size per element: a layer with small
# gradients still moves like the others (GD304). Adadelta belongs here: its step is a ratio of running
# RMS values, whatever the gradient's scale.
RESCALING = ADAPTIVE | {"Adadelta"}
