"""Rules of the data family: causes outside the graph that a run proves from the loss inputs and the module tree."""

TITLE = "Loss and data"
