"""`[tool.graddoctor]` in pyproject.toml, found by walking up from the first linted path."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

# tomllib is in the standard library from 3.11; on 3.10, tomli (the same parser, a dependency there).
if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from graddoctor.finding import FAIL_ON

# Every key [tool.graddoctor] takes; any other is a mistake said out loud (a misspelt "ignore" must
# not silently lint everything). `lint` is the optional [tool.graddoctor.lint] sub-table.
KEYS = ("select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "fail-on", "per-file-ignores")
_ALSO = ("fail_on", "lint")


class ConfigError(Exception):
    pass


@dataclass
class Config:
    path: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fail_on: str | None = None
    # (glob, codes, prefixes or rule names): findings in files matching the glob are not reported.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()


def find_pyproject(start: Path) -> Path | None:
    cur = start.resolve()
    if not cur.is_dir():
        cur = cur.parent
    for folder in [cur, *cur.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                if "[tool.graddoctor" in candidate.read_text(encoding="utf-8", errors="replace"):
                    return candidate
            except OSError:
                return None
    return None


def load(start: Path) -> Config:
    path = find_pyproject(start)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read [tool.graddoctor]: {exc}") from None
    table = data.get("tool", {}).get("graddoctor", {})
    if isinstance(table.get("lint"), dict):  # [tool.graddoctor.lint] also works
        table = {**table, **table["lint"]}
    unknown = sorted(k for k in table if k not in KEYS + _ALSO)
    if unknown:
        raise ConfigError(f"{path}: [tool.graddoctor] has no key {_named(unknown[0])}; the keys are {', '.join(KEYS)}")

    def codes(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.graddoctor] {key} must be a list of strings")
        return tuple(value)

    fail_on = table.get("fail-on", table.get("fail_on"))
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ConfigError(f"{path}: [tool.graddoctor] fail-on must be error, warning, info or never, not {fail_on!r}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f'{path}: [tool.graddoctor] per-file-ignores must be a table, e.g. {{"tests/*" = ["GD2"]}}')
    ignores = []
    for glob, value in per_file.items():
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.graddoctor] per-file-ignores {glob!r} must be a list of codes or rule names")
        ignores.append((glob, tuple(value)))
    return Config(
        path=path,
        per_file_ignores=tuple(ignores),
        select=codes("select") + codes("extend-select"),
        ignore=codes("ignore") + codes("extend-ignore"),
        exclude=codes("exclude") + codes("extend-exclude"),
        fail_on=fail_on,
    )


def _named(key: str) -> str:
    """The unknown key, with the known one it most likely meant."""
    import difflib

    close = difflib.get_close_matches(key, KEYS, n=1)
    return f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)
