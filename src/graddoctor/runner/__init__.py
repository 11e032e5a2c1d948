"""`graddoctor run`: a user's unmodified script, run as __main__ under instrumentation."""
