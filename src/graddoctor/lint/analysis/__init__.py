"""The shared analysis every lint check reads: names, scopes, grad mode, call order."""
