"""Every renderer takes every Report: NaN, Inf, None, empty and huge layer tables, unicode and HTML in names.

Hypothesis builds the reports; each renderer's output is checked by a real parser
(JSON against report/schema.json, HTML by html.parser, SVG by an XML parser, the
PNG's header and size, SARIF against the official schema).
"""

from __future__ import annotations

import json
import math
import struct
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graddoctor
from graddoctor.finding import Finding, Related, Severity
from graddoctor.report.sarif import sarif
from graddoctor.report.html import render_html
from graddoctor.report.layers import LayerRow
from graddoctor.report.plot import plot_layers
from graddoctor.report.report import Report
from graddoctor.report.svg import gradient_flow_svg
from graddoctor.report.terminal import render_text

SCHEMA = json.loads((Path(graddoctor.__file__).parent / "report" / "schema.json").read_text())
SARIF_SCHEMA = json.loads((Path(__file__).parent.parent / "lint" / "sarif-2.1.0-rtm.5.schema.json").read_text())
HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "a&b\"c'd", "]]><!--", "层.ünïcødé.😀",
           "encoder.0", "", " ", "\u202eevil", "x" * 300]
CODES = ["GD101", "GD104", "GD201", "GD301", "GD302", "GD304", "GD501"]

numbers = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-300, 5e-324, 1e308]))
names = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40))
rows = st.builds(LayerRow, name=names, params=st.integers(0, 10**6), grad_norm=numbers, grad_norm_max=numbers,
                 update_ratio=numbers, has_grad=st.booleans())
lines = st.one_of(st.none(), st.integers(1, 10**6))
rule_names = st.sampled_from(["parameter-without-gradient", "non-finite-loss", "x"])
findings = st.builds(
    Finding, code=st.sampled_from(CODES), name=rule_names, severity=st.sampled_from(list(Severity)), message=names.filter(bool),
    hint=names, file=st.one_of(st.none(), names.filter(bool)), line=lines, column=lines,
    related=st.lists(st.builds(Related, file=st.one_of(st.none(), names), line=lines, note=names), max_size=2),
    subjects=st.lists(names, max_size=12), step=st.one_of(st.none(), st.integers(1, 10**6)),
)
exceptions = st.one_of(st.none(), st.fixed_dictionaries(
    {"type": names, "message": names, "file": st.one_of(st.none(), names), "line": lines}))
reports = st.builds(
    Report, command=st.sampled_from(["run", "watch", "diagnose"]), target=st.one_of(st.none(), names),
    findings=st.lists(findings, max_size=5), layers=st.one_of(st.none(), st.lists(rows, max_size=30)),
    status=st.sampled_from([None, "completed", "crashed", "stopped"]), exception=exceptions,
    steps_observed=st.one_of(st.none(), st.integers(0, 10**9)),
    steps_by_optimizer=st.one_of(st.none(), st.dictionaries(names, st.integers(0, 10**9), max_size=4)),
)
FAST = settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _strict_json(text: str):
    def refuse(constant: str):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _check_json(report: Report) -> dict:
    data = _strict_json(report.to_json())
    jsonschema.validate(data, SCHEMA)
    return data


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _check_html(report: Report) -> str:
    page = render_html(report)
    parser = _Page()
    parser.feed(page)
    parser.close()
    assert "script" not in parser.tags and "img" not in parser.tags  # names were escaped, not interpreted
    return page


def _check_svg(layers) -> None:
    svg = gradient_flow_svg(layers)
    if not layers:
        assert svg == ""
        return
    root = ET.fromstring(svg)
    for element in root.iter():
        for attr in ("x", "y", "width", "height"):
            value = element.get(attr)
            if value is not None:
                assert math.isfinite(float(value)) and float(value) >= 0, (attr, value)


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@FAST
@given(reports)
def test_json_is_valid_json_and_follows_the_schema(report):
    data = _check_json(report)
    for row, out in zip(report.layers or [], data.get("layers", [])):
        for key in ("grad_norm", "grad_norm_max", "update_ratio"):
            value = getattr(row, key)
            if value is not None and not math.isfinite(value):
                assert out[key] == ("nan" if math.isnan(value) else "inf" if value > 0 else "-inf")
            else:
                assert out[key] == value
    # and what was written reads back as the same rows
    back = [LayerRow.from_json(r) for r in data.get("layers", [])]
    assert [r.name for r in back] == [r.name for r in report.layers or []]
    assert all(math.isnan(b.grad_norm) for b, r in zip(back, report.layers or [])
               if r.grad_norm is not None and math.isnan(r.grad_norm))


@FAST
@given(reports)
def test_terminal_renders_every_report(report):
    text = render_text(report)
    assert text.endswith("\n")
    for f in report.findings:
        assert f.code in text


@FAST
@given(reports)
def test_html_escapes_names_and_parses(report):
    page = _check_html(report)
    for raw in ("<script>", "<img src=x"):
        assert raw not in page


@FAST
@given(st.lists(rows, max_size=40))
def test_svg_is_well_formed_with_finite_geometry(layers):
    _check_svg(layers)


# Arbitrary names include scripts DejaVu Sans has no glyphs for, and norms near float max overflow
# matplotlib's log transform: matplotlib warns about both, and the plot must still be written.
@pytest.mark.filterwarnings("ignore:Glyph .* missing from font:UserWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning:matplotlib")
@settings(max_examples=8, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(layers=st.lists(rows, max_size=25))
def test_png_plot_renders_any_layer_table(layers, tmp_path):
    path = plot_layers(layers, str(tmp_path / "flow.png"))
    width, height = _png_size(Path(path))
    assert 600 <= width <= 2400 and 400 <= height <= 1200


@FAST
@given(st.lists(findings, max_size=6))
def test_sarif_validates_and_keeps_paths(found):
    log = _strict_json(sarif(found))
    jsonschema.validate(log, SARIF_SCHEMA)
    results = log["runs"][0]["results"]
    for f, result in zip(found, results):
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert "#" not in uri and "?" not in uri and " " not in uri
        assert unquote(uri) == Path(f.file or "").as_posix()


@pytest.mark.slow  # every renderer on 10,000 layers: ~4 s of CPU
def test_ten_thousand_layers_in_every_renderer(tmp_path):
    layers = [LayerRow(name=f"blocks.{i}.<mlp>&ü", params=2, grad_norm=[math.nan, math.inf, None, 1e-3 * i][i % 4],
                       grad_norm_max=[math.inf, 1.0, None, float(i)][i % 4], update_ratio=None, has_grad=i % 7 != 0)
              for i in range(10_000)]
    report = Report(command="run", target="train.py", layers=layers, status="completed", steps_observed=1,
                    findings=[Finding("GD302", "non-finite-gradient", Severity.ERROR, "NaN <b>", "fix &", "train.py", 3)])
    assert len(_check_json(report)["layers"]) == 10_000
    assert "GD302" in render_text(report)
    page = _check_html(report)
    assert page.count("<tr>") == 10_001
    _check_svg(layers)
    width, height = _png_size(Path(plot_layers(layers, str(tmp_path / "big.png"))))
    assert width <= 2400 and height <= 1200


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_nan_run_report_is_strict_json(value):
    layers = [LayerRow("encoder.0", 2, value, value, value, True), LayerRow("head", 2, None, None, None, False)]
    data = _check_json(Report(command="run", target="t.py", layers=layers, status="completed", steps_observed=1))
    assert data["layers"][1]["grad_norm"] is None
