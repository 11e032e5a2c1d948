"""Deep mode's recorder: where autograd history was cut, edited in place, or freed, by the user's line.

The observer that reads it is observers/provenance.py.
"""
