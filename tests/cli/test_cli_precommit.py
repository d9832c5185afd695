"""The hook end to end: a temporary git repo with a kernel and a tilesight.toml, real ``pre-commit`` (from
PyPI) running this repository's hook definition on ``git commit``: it passes, then a worse config fails it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_kernels import SCALE_ARGS, SCALE_GRID, SCALE_KERNEL

pytest.importorskip("triton")
pytest.importorskip("pre_commit")
yaml = pytest.importorskip("yaml")  # a dependency of pre-commit

REPO = Path(__file__).resolve().parents[2]


def watch_list(config: str) -> str:
    return (
        'baseline = "perf-baseline.json"\nthreshold = 0.05\nhw = ["h200"]\n\n'
        f'[[kernel]]\nname = "scale"\ntarget = "scale.py::scale_kernel"\nargs = "{SCALE_ARGS}"\n'
        f'grid = "{SCALE_GRID}"\nconfig = "{config}"\n'
    )


def sh(cwd: Path, env: dict[str, str], *cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_hook_passes_then_fails_on_a_slower_kernel(tmp_path: Path) -> None:
    repo = tmp_path / "user-repo"
    repo.mkdir()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "TRITON_DEFAULT_FP_FUSION": "1",
    }
    # The hook exactly as this repository publishes it, run as a local hook (tilesight is installed here).
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (repo / "scale.py").write_text(SCALE_KERNEL)
    (repo / "tilesight.toml").write_text(watch_list("BLOCK=1024 num_warps=4"))

    assert sh(repo, env, "git", "init", "-q").returncode == 0
    tool = shutil.which("tilesight", path=env["PATH"])
    assert tool is not None, "the tilesight console script is not installed"
    update = sh(repo, env, tool, "check", "--update")
    assert update.returncode == 0, update.stderr
    installed = sh(repo, env, sys.executable, "-m", "pre_commit", "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr

    sh(repo, env, "git", "add", "-A")
    first = sh(repo, env, "git", "commit", "-q", "-m", "kernel and its baseline")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "tilesight performance check" in first.stdout + first.stderr

    # 32-element blocks: 32x the blocks of 1024, predicted well past the 5% threshold
    (repo / "tilesight.toml").write_text(watch_list("BLOCK=32 num_warps=4"))
    sh(repo, env, "git", "add", "-A")
    second = sh(repo, env, "git", "commit", "-q", "-m", "worse config")
    log = second.stdout + second.stderr
    assert second.returncode != 0, log
    assert "regressed" in log and "scale@h200" in log and "Failed" in log
    assert sh(repo, env, "git", "log", "--oneline").stdout.count("\n") == 1  # the slow commit was refused
