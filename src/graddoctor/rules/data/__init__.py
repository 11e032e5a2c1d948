"""Rules of the loss-and-data family: causes outside the graph that a run proves from the loss inputs and the module tree."""
