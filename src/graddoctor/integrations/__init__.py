"""Thin, optional integrations: each imports its framework only when used."""
