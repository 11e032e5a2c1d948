"""The training-loop audit: the order of backward, step, zero_grad, clip, scheduler and GradScaler calls."""
