"""What `fix` prints and adds to its HTML page, from recorded curves and texts (no run needed)."""

from __future__ import annotations

import re

from graddoctor.fix.render import _ends, add_loss_chart
from graddoctor.report.svg import line_chart_svg


def test_loss_ends_are_medians_of_windows_not_single_steps():
    # a run that never learned: its last batch held 4 samples and happened to score low
    curve = [(s, 2.3 + (0.01 if s % 2 else -0.01)) for s in range(1, 40)] + [(40, 0.7865)]
    said = _ends(curve)
    start, end = (float(x) for x in re.match(r"([\d.]+) → ([\d.]+)", said).groups())
    assert abs(start - 2.3) < 0.02 and abs(end - 2.3) < 0.02, said
    assert "medians of steps 1-8 and 33-40" in said


def test_a_gap_in_the_recorded_steps_is_not_drawn_as_a_line():
    first = [(s, 1.0 - s / 100) for s in range(1, 65)]
    last = [(s, 0.2) for s in range(937, 1001)]
    svg = line_chart_svg({"original": first + last}, label="loss")
    assert svg.count("<polyline") == 2
    svg = line_chart_svg({"original": first}, label="loss")
    assert svg.count("<polyline") == 1


def test_the_html_page_gets_the_edits_and_verdicts_and_the_chart(tmp_path):
    page = tmp_path / "fix.html"
    page.write_text("<html><body><h1>report</h1></body></html>")
    said = ("graddoctor fix: 1 edit\n\nGD101 train.py:12  Keep the loss a tensor\n-    loss = crit(out, y).item()\n"
            "+    loss = crit(out, y)\n\n  GD101 train.py:12  gone, nothing new  verified\n")
    add_loss_chart(str(page), [(1, 2.0), (2, 1.9)], [(1, 2.0), (2, 1.0)], said)
    text = page.read_text()
    assert text.index('class="fixedits"') < text.index('class="fixloss"') < text.index("</body>")
    assert "+    loss = crit(out, y)" in text and "gone, nothing new  verified" in text
