"""Distributed runs: every rank instrumented, findings merged on rank 0 (torchrun)."""
