"""Rules of the frameworks family."""
