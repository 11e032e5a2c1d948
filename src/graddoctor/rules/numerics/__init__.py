"""Rules of the numerics family."""
