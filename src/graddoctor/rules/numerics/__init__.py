"""Rules of the numerics family: non-finite values, gradient and update sizes, a loss that does not go down."""

TITLE = "Numerics and learning progress"
