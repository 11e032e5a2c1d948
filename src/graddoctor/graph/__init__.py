"""The autograd graph: walking it from a loss, naming what it reaches, diagnosing it."""
