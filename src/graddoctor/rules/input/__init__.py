"""Rules of the input family: files that `graddoctor lint` cannot read."""

TITLE = "Input files"
