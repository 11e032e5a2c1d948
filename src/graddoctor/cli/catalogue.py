"""`graddoctor rules [CODE]`: the finding catalogue, or one rule's documentation."""

from __future__ import annotations

from graddoctor.exits import EXIT_OK, UsageFailure
from graddoctor.cli.parser import Parser


def rules_command(argv: list[str]) -> int:
    parser = Parser(
        prog="graddoctor rules",
        description="List the finding catalogue, or print one rule's documentation and where its parts live.",
        epilog="Columns of the list: code, name, severity, how it is detected (R: at runtime, by run, watch(), "
        "diagnose() or explain; S: statically, by lint; RS: both), and what it finds.",
    )
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
        print(where_it_lives(rule.code, rule.engines))
        from graddoctor.docs_build import rule_body

        print(rule_body(rule), end="")
        return EXIT_OK
    width = max(len(r.name) for r in all_rules())
    for rule in all_rules():
        print(f"{rule.code}  {rule.name:<{width}}  {str(rule.severity):<7}  {rule.detected:<2}  {rule.summary}")
    return EXIT_OK


def where_it_lives(code: str, engines: tuple[str, ...]) -> str:
    """The files that make up one rule, for a maintainer about to change it."""
    from graddoctor.rules.parts import PART_FILES, homes, relative

    home = homes()[code]
    rows = [("page", relative(home.path / "__init__.py"))]
    rows += [(part, relative(home.path / name)) for part, name in PART_FILES.items() if (home.path / name).is_file()]
    rows += [("helper", relative(path)) for path in home.helpers()]
    rows += [("demo", relative(path)) for path in home.demos()]
    rows += [("engine", name.replace(".", "/").removeprefix("graddoctor/") + ".py") for name in engines]
    width = max(len(kind) for kind, _ in rows)
    return "Where it lives (under src/graddoctor/):\n" + "".join(f"  {kind:<{width}}  {path}\n" for kind, path in rows)


def _detected(kind: str) -> str:
    return {"R": "runtime", "S": "static", "RS": "runtime and static"}[kind]
