"""Deep mode: where autograd history was cut, edited in place, or freed, by the user's line."""

from graddoctor.provenance.observer import ProvenanceObserver

__all__ = ["ProvenanceObserver"]
