"""Conclusions drawn across findings: one module per conclusion, run after every judge has spoken.

A judge sees one code's evidence; a conclusion sees the findings together (one explains
another, one makes another redundant) and decides from their fields, never their text.
"""
