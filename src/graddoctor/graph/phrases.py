"""Plain-words pieces of messages: lists of parameter names, counts, related lines."""

from __future__ import annotations

from graddoctor.finding import Related
from graddoctor.locate import Location


def name_list(names: list[str], limit: int = 3) -> str:
    """"a, b and c" or "a, b, c and 4 more"."""
    names = list(names)
    if not names:
        return "no parameters"
    if len(names) <= limit:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def group_by_module(names: list[str], module_sizes: dict[str, int], module_of: dict[str, str]) -> list[str]:
    """Replace the names of a module whose every parameter is listed by "`module` (all N)"."""
    by_module: dict[str, list[str]] = {}
    for name in names:
        by_module.setdefault(module_of.get(name, ""), []).append(name)
    out: list[str] = []
    for module, members in by_module.items():
        if module and len(members) > 1 and len(members) == module_sizes.get(module, -1):
            out.append(f"all of `{module}`")
        else:
            out.extend(members)
    return out


def related_at(loc: Location | None, note: str) -> list[Related]:
    """`loc` as a related line of a finding, or nothing when it is not in a file."""
    if loc is None or not loc.file:
        return []
    shown = loc.shown()
    return [Related(shown["file"], shown["line"], note)]
