"""benchmarks/real_pipelines.py's corpus is well formed (the benchmark itself runs outside `make test`).

Issue 29 sets the gate at 100 configurations over 12 repositories; a configuration whose
repository, driver or name is wrong would only show as a benchmark error hours later.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def corpus():
    pytest.importorskip("PIL")
    sys.path.insert(0, str(BENCH))
    try:
        import real_pipelines_corpus
        import real_pipelines_more

        yield real_pipelines_corpus, real_pipelines_more
    finally:
        sys.path.remove(str(BENCH))


def test_the_corpus_has_a_hundred_configurations_over_twelve_repositories(corpus):
    module, _ = corpus
    assert len(module.CONFIGS) >= 100
    assert len({c.repo for c in module.CONFIGS}) >= 12


def test_every_configuration_names_a_known_repository_once_and_its_driver_exists(corpus):
    module, more = corpus
    names = [c.name for c in module.CONFIGS]
    assert len(names) == len(set(names))
    for config in module.CONFIGS:
        assert config.repo in module.REPOS, config.name
        assert "/" in module.REPOS[config.repo]
        assert not Path(config.script).is_absolute() and not Path(config.cwd).is_absolute(), config.name
        if config.script.startswith("gd_bench_"):
            assert (more.DRIVERS / config.script).is_file(), config.name


def test_the_command_line_takes_every_repository_and_rejects_an_unknown_one(corpus, capsys):
    sys.path.insert(0, str(BENCH))
    try:
        import real_pipelines
    finally:
        sys.path.remove(str(BENCH))
    assert real_pipelines.main(["--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(corpus[0].CONFIGS)
    with pytest.raises(SystemExit):
        real_pipelines.main(["--only", "no_such_configuration"])
    with pytest.raises(SystemExit):
        real_pipelines.main(["--repo", "no-such-repo=/tmp", "--only", "mnist"])
