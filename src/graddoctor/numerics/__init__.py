"""Numbers of a live run: gradient norms per layer, update ratios, loss values."""
