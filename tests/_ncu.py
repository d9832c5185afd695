"""A hand-made ``ncu --csv`` page for the tests of the ncu probes' readers (``benchmarks/ncu_diag``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

HEADER = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"'


def ncu_csv(launches: Sequence[Mapping[str, object]], kernel: str) -> str:
    """ncu's CSV rows for ``launches`` (one metric name -> value mapping a launch, IDs 0, 1, ...), all of the
    kernel ``kernel``, after its header line; ends with a newline."""
    rows = [HEADER]
    for i, metrics in enumerate(launches):
        rows += [f'"{i}","{kernel}","{name}","","{value}"' for name, value in metrics.items()]
    return "\n".join(rows) + "\n"
