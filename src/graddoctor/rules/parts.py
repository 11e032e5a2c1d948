"""Where each part of a rule lives: read from the files of its package, never imported.

A rule is one package, `rules/<family>/gdNNN_<name>/`:

- `__init__.py`: its page (the module docstring, in the house format) and `RULE`;
- `judge.py`: the runtime judge (plus any helper modules it keeps beside it);
- `check.py`: the static check that `graddoctor lint` runs;
- `edit.py`: the source edit that `graddoctor fix` and `lint --fix` apply;
- `gdNNN_<program>.py`: its demo program(s), run by `graddoctor demo`.

A code whose runtime judgement needs a shared engine's whole view (the loop audit's
event order, the graph walk of a loss) names that engine in its page (`Rule.engines`).
Listing parts needs no torch and no libcst: only file names are read here, so the
catalogue stays at the bottom of the layers while its parts sit above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parent
PACKAGE_DIR = RULES_DIR.parent
PART_FILES = {"judge": "judge.py", "check": "check.py", "edit": "edit.py"}
_RULE_DIR = re.compile(r"^gd\d{3}_[a-z0-9_]+$")
_DEMO = re.compile(r"^gd\d{3}_[a-z0-9_]+\.py$")


@dataclass(frozen=True)
class RuleHome:
    """One rule's package on disk."""

    code: str
    family: str
    path: Path

    @property
    def module(self) -> str:
        """The dotted name of the rule's package (its page)."""
        return f"graddoctor.rules.{self.family}.{self.path.name}"

    def part_module(self, part: str) -> str | None:
        """`graddoctor.rules.<family>.<pkg>.judge` (or check, edit) when the rule has that part."""
        return f"{self.module}.{part}" if (self.path / PART_FILES[part]).is_file() else None

    def demos(self) -> list[Path]:
        return sorted(p for p in self.path.glob("gd*.py") if _DEMO.match(p.name))

    def helpers(self) -> list[Path]:
        """Modules beside the parts that only this rule uses (e.g. GD207's loss lifetimes)."""
        known = {"__init__.py", *PART_FILES.values()}
        return sorted(p for p in self.path.glob("*.py") if p.name not in known and not _DEMO.match(p.name))


@lru_cache(maxsize=1)
def homes() -> dict[str, RuleHome]:
    """Every rule package, by code, found by walking `rules/<family>/`."""
    out: dict[str, RuleHome] = {}
    for family_dir in sorted(p for p in RULES_DIR.iterdir() if (p / "__init__.py").is_file()):
        for rule_dir in sorted(family_dir.iterdir()):
            if _RULE_DIR.match(rule_dir.name) and (rule_dir / "__init__.py").is_file():
                code = rule_dir.name[:5].upper()
                if code in out:
                    raise RuntimeError(f"two packages for {code}: {out[code].path} and {rule_dir}")
                out[code] = RuleHome(code, family_dir.name, rule_dir)
    return out


def codes_with(part: str) -> list[str]:
    """The codes whose package holds `part` ("judge", "check" or "edit")."""
    return [code for code, home in sorted(homes().items()) if home.part_module(part)]


def demo_programs() -> list[Path]:
    """Every demo program of every rule, by file name (the name `graddoctor demo` shows)."""
    return sorted((p for home in homes().values() for p in home.demos()), key=lambda p: p.name)


def is_demo_program(path: str) -> bool:
    """Whether a real path is one of the demo programs: user code although it lives in the package."""
    p = Path(path)
    return _DEMO.match(p.name) is not None and p.parent.parent.parent == RULES_DIR and _RULE_DIR.match(p.parent.name) is not None


def relative(path: Path) -> str:
    """A part's path as the README and `graddoctor rules` show it: `rules/loop/gd207_.../judge.py`."""
    return path.relative_to(PACKAGE_DIR).as_posix()
