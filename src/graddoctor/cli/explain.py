"""`graddoctor explain [MESSAGE]`: a message or a traceback (stdin) to causes and fixes."""

from __future__ import annotations

import sys

from graddoctor.cli.parser import Parser
from graddoctor.explain.explainer import explain
from graddoctor.explain.tracebacks import parse
from graddoctor.report.report import Report


def explain_command(argv: list[str]) -> int:
    parser = Parser(prog="graddoctor explain", description="Explain a PyTorch error: give the message, or pipe a traceback on stdin.")
    parser.add_argument("message", nargs="*", help="the error message (default: read stdin)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default), or json: the report of SPEC section 2 with \"command\": \"explain\"")
    opts = parser.parse_args(argv)
    text = " ".join(opts.message) if opts.message else sys.stdin.read()
    if not text.strip():
        parser.error("give an error message, or pipe a traceback on stdin")
    findings = explain(text)
    parsed = parse(text)
    report = Report(command="explain", target=(parsed.exc_type or "message"), findings=findings)
    if opts.format == "json":
        print(report.to_json())
    elif findings:
        from graddoctor.report.terminal import print_report

        print_report(report)
    else:
        first = parsed.message.strip().splitlines()[0] if parsed.message.strip() else text.strip()[:200]
        print(f"graddoctor does not recognise this error: {first}")
        print("It is not one of the autograd failures in the catalogue ('graddoctor rules' lists them), so no cause is guessed.")
    return 0 if findings else 1



