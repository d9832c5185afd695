"""The printed table of the survey scorers (``survey_triton/score.py``, ``survey_tilelang/score.py``, CPU).

Per family the MAPE of the prediction and of the roofline on the scored cases, then the cases refused or not
timed, any notes, and the worst cases by error.
"""

from __future__ import annotations


def print_scores(
    fams: dict[str, list[tuple[float, float]]],
    refused: list[str],
    errors: list[str],
    scored: list[tuple[float, float, str, float, float]],
    name_width: int,
    notes: tuple[str, ...] = (),
) -> None:
    """``fams``: family -> (|error|, |roofline error|) per case; ``scored``: (|error|, error, name, measured
    us, predicted us) per case; ``notes``: lines printed after the refused and untimed lists."""
    print(f"{'family':10s} {'n':>3s} {'MAPE %':>7s} {'roofline %':>10s}")
    for fam, v in sorted(fams.items()):
        n = len(v)
        mape, roof = 100 * sum(e for e, _ in v) / n, 100 * sum(r for _, r in v) / n
        print(f"{fam:10s} {n:3d} {mape:7.1f} {roof:10.1f}")
    print(f"\nrefused ({len(refused)}):", *refused, sep="\n  ")
    print(f"not timed ({len(errors)}):", *errors, sep="\n  ")
    for line in notes:
        print(line)
    print("\nworst:")
    for _, err, name, m, p in sorted(scored, reverse=True)[:12]:
        print(f"  {name:{name_width}s} measured {m:9.1f} us  predicted {p:9.1f} us  {100 * err:+6.1f}%")
