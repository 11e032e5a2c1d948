"""Rules of the errors family: errors outside autograd (shapes, dtypes, devices, targets, setup), explained by `graddoctor explain`."""

TITLE = "Training errors"
