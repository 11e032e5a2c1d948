"""The demo gallery: small broken training programs, each with the diagnosis it must get."""
