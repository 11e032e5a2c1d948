"""GD001 unused-noqa (info, detected statically).

## What it does
Reports a `# noqa` comment that names a graddoctor code or rule (`# noqa: GD207`,
`# noqa: graph-kept-alive`, `# graddoctor: noqa: GD2`) but silenced nothing in this lint.

## Why is this bad?
The bug it once silenced was fixed or moved, so the comment now only hides the next finding of
that code on the line, one you have never seen. Codes of other tools (`# noqa: E501`) and a bare
`# noqa` are left alone, and a code that `--select`/`--ignore` did not run is never called unused.

## Example
```python
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()  # noqa: GD101
    optimizer.step()
```

## Use instead
```python
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```
"""

from graddoctor.finding import Severity
from graddoctor.rules.base import Rule

RULE = Rule(
    code='GD001',
    name='unused-noqa',
    severity=Severity.INFO,
    detected='S',
    hint='Remove the code from the `# noqa` comment (or the whole comment when nothing in it is used).',
    engines=('graddoctor.lint.engine',),
    doc=__doc__,
)
