"""Rules of the graph family: whether the loss reaches the parameters that should train."""

TITLE = "Graph connectivity"
