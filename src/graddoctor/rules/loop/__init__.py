"""Rules of the loop family."""
