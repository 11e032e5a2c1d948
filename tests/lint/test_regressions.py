"""Bugs found by using the linter, kept fixed."""

import textwrap

from graddoctor.lint.engine import lint_source


def test_a_finding_reached_through_two_paths_is_reported_once():
    source = textwrap.dedent("""
        def train(model, loader, optimizer, criterion):
            total_loss = 0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.zero_grad()
                optimizer.step()
                total_loss += loss
            return total_loss / len(loader)
    """)
    found = [(f.code, f.line) for f in lint_source(source, "loop.py").findings]
    assert found.count(("GD202", 7)) == 1
    assert ("GD207", 9) in found
