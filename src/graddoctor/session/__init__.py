"""Instrumentation of a live training run: patches, events, and the observers fed by them."""
