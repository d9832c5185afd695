"""The TileLang versions whose IR the walker understands, and the check that refuses any other."""

from __future__ import annotations

from tilesight.errors import VersionError

# The walker reads TileLang's TIR op names and argument layouts (tl.tileop.copy / gemm / reduce / fill,
# tl.region, the threadblock_swizzle_pattern attribute) as TileLang 0.1.15 emits them.
SUPPORTED_VERSIONS: tuple[str, ...] = ("0.1.15",)


def check_version(version: str) -> None:
    """Raise VersionError naming the supported range unless ``version`` is one the walker reads."""
    base = str(version).split("+", 1)[0]
    if base not in SUPPORTED_VERSIONS:
        raise VersionError(
            f"TileLang {version} is not supported by the TileSight TileLang frontend; "
            f"supported: tilelang=={' or =='.join(SUPPORTED_VERSIONS)}",
            construct=f"tilelang=={version}",
        )


def installed_version() -> str:
    import tilelang

    return str(tilelang.__version__)
