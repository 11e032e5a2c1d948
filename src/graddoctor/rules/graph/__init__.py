"""Rules of the graph family."""
