"""GD201 at the step that GD213 calls the wrong optimizer's: one cause, said once.

When a generator's step calls `d_optimizer.step()` after `g_loss.backward()`, the
discriminator's optimizer steps twice per iteration, the second time without a
`zero_grad()` since its first: the loop audit sees a missing zero_grad (GD201) at
that very line. The cause is the wrong optimizer (GD213, whose edit also removes
the GD201), so a GD201 at the line of a GD213 is dropped. Decided from `code`,
`file` and `line`, never from the wording.
"""

from __future__ import annotations

from graddoctor.finding import Finding


def drop_extra_step(findings: list[Finding]) -> list[Finding]:
    """`findings` without the GD201 findings at the line of a GD213."""
    wrong = {(f.file, f.line) for f in findings if f.code == "GD213"}
    if not wrong:
        return findings
    return [f for f in findings if not (f.code == "GD201" and (f.file, f.line) in wrong)]
