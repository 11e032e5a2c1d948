"""The verified debugging checklists: "loss does not go down" and "gradient is None"."""
