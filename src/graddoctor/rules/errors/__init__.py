"""Rules of the errors family: training errors outside autograd (shapes, dtypes, devices, targets, setup)."""
