"""Turn PyTorch errors (exceptions, messages, whole tracebacks) into findings."""
