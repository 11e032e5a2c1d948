"""`graddoctor rules [CODE]`: the finding catalogue, or one rule's documentation."""

from __future__ import annotations

from graddoctor.cli.exits import EXIT_OK, UsageFailure
from graddoctor.cli.parser import Parser


def rules_command(argv: list[str]) -> int:
    parser = Parser(prog="graddoctor rules", description="List the finding catalogue, or print one rule's documentation.")
    parser.add_argument("code", nargs="?", help="a code such as GD104 (or its name)")
    opts = parser.parse_args(argv)
    from graddoctor.rules import all_rules, get_rule

    if opts.code:
        wanted = opts.code.strip()
        rule = next((r for r in all_rules() if r.name == wanted), None)
        if rule is None:
            try:
                rule = get_rule(wanted)
            except KeyError:
                raise UsageFailure(f"no rule {wanted!r}; 'graddoctor rules' lists them") from None
        print(f"{rule.code} {rule.name} ({rule.severity}, {_detected(rule.detected)})\n")
        from graddoctor.docs_build import rule_body

        print(rule_body(rule), end="")
        return EXIT_OK
    width = max(len(r.name) for r in all_rules())
    for rule in all_rules():
        print(f"{rule.code}  {rule.name:<{width}}  {str(rule.severity):<7}  {rule.detected:<2}  {rule.summary}")
    return EXIT_OK


def _detected(kind: str) -> str:
    return {"R": "runtime", "S": "static", "RS": "runtime and static"}[kind]
