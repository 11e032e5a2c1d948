"""Rules of the loop family: the order of zero_grad, backward, clip, step and scheduler, and what a loop keeps alive."""

TITLE = "Training loop"
