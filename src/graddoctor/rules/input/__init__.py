"""Rules of the input family."""
