"""GD000 unreadable-file (error, detected statically).

## What it does
Reports a file that `graddoctor lint` cannot read, decode or parse as Python.

## Why is this bad?
Nothing in the file can be checked, so every other rule is silent on it: a clean result would be a lie.

## Example
```python
print 'hello'   # Python 2 syntax
```

## Use instead
```python
print('hello')
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD000',
    name='unreadable-file',
    severity=Severity.ERROR,
    detected='S',
    hint='Fix the syntax error or encoding, or exclude the file with `--exclude`.',
    engines=('graddoctor.lint.engine',),
    doc=__doc__,
)
