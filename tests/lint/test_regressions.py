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


def test_a_loss_unpacked_from_a_literal_tuple_is_followed_without_crashing():
    # `loss, value = criterion(...), loss_before.item()` binds each name to its own item;
    # the swapped-unpack note of GD101 once took the whole right-hand tuple for a call.
    source = textwrap.dedent("""
        def train(model, loader, optimizer, criterion):
            for x, y in loader:
                optimizer.zero_grad()
                out = model(x)
                value, loss = criterion(out, y).item(), criterion(out, y)
                loss.backward()
                optimizer.step()
                broken, kept = criterion(out, y).item(), value
                broken.backward()
    """)
    found = [(f.code, f.line) for f in lint_source(source, "unpack.py").findings]
    assert found == [("GD101", 9)]
