"""The pip command in "needs X" messages works where graddoctor was installed from."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import graddoctor.extras
from graddoctor.extras import install_command

ROOT = Path(__file__).resolve().parents[2]


def _load_copy_at(folder: Path):
    """graddoctor/extras.py as if installed at `folder`/graddoctor/extras.py."""
    (folder / "graddoctor").mkdir(parents=True)
    target = folder / "graddoctor" / "extras.py"
    shutil.copy(graddoctor.extras.__file__, target)
    spec = importlib.util.spec_from_file_location("extras_copy", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_from_this_clone_the_command_installs_the_extra_into_the_clone(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    assert install_command("fix") == "pip install -e '.[fix]'"
    monkeypatch.chdir(tmp_path)
    assert install_command("fix") == f"pip install -e '{ROOT}[fix]'"


def test_from_site_packages_the_command_names_the_package(tmp_path):
    copy = _load_copy_at(tmp_path / "lib" / "python3.11" / "site-packages")
    assert copy.install_command("plot") == "pip install 'graddoctor[plot]'"


def test_a_src_folder_without_a_project_file_is_not_a_clone(tmp_path):
    copy = _load_copy_at(tmp_path / "src")
    assert copy.install_command("fix") == "pip install 'graddoctor[fix]'"
