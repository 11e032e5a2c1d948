"""Loss and data: the causes outside the graph that a run proves from the loss inputs and the module tree.

One module per code (probabilities GD501, copies GD502, broadcast GD503,
sorted_batches GD504, constant GD505), the entry points they listen at
(patches), and the observer that feeds them (observer). GD506 (the batch layout
of sequence layers) is an observer of its own (gd506_batch_dimension_mix_up): it
hooks the sequence layers rather than the losses.
"""

from graddoctor.lossdata.observer import LossDataObserver

__all__ = ["LossDataObserver"]
