"""Errors graddoctor raises at the user (helpers' checks), as opposed to findings."""


class GradDoctorError(Exception):
    """Base of every error graddoctor raises on purpose."""
