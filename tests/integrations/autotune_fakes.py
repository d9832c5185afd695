"""Test helpers (a module, not a conftest: other test folders have conftests too): a fake ranking, so that
selection logic runs without compiling, and distinct triton.Configs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tilesight.integrations.rank import RankedConfig, Ranking


def fake_ranking(latencies: dict[int, float | None], configs: list[Any]) -> Ranking:
    """configs[i] predicted at latencies[i] seconds, or refused as unlaunchable when the latency is None."""
    ranked = [
        RankedConfig(configs[i], report=SimpleNamespace(latency_s=t))  # type: ignore[arg-type]
        for i, t in latencies.items()
        if t is not None
    ]
    ranked.sort(key=lambda r: r.latency_s)
    refused = [
        RankedConfig(configs[i], refused="smem over the limit: the kernel cannot launch", cannot_launch=True)
        for i, t in latencies.items()
        if t is None
    ]
    return Ranking(tuple(ranked), tuple(refused), 0.0, 0.0)


def make_configs(n: int) -> list[Any]:
    """n distinct triton.Configs (BLOCK = 16, 32, ...); callers have already imported triton."""
    import triton

    return [triton.Config({"BLOCK": 16 * (i + 1)}, num_warps=4, num_stages=2) for i in range(n)]
