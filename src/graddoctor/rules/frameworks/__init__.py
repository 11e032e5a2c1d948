"""Rules of the frameworks family: what DDP, FSDP and other wrappers add to the training loop."""

TITLE = "Frameworks, compilation, distribution"
