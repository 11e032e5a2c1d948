"""`graddoctor lint`: a static checker for PyTorch training code.

`lint_source(source, filename)` checks one file's text; `lint_paths(paths)`
checks files and folders. Both return Findings; `cli.lint_command` renders them.
"""

from graddoctor.lint.engine import lint_paths, lint_source

__all__ = ["lint_paths", "lint_source"]
