"""Typed errors. Every error names the offending field, value, op or source location.

Users catch :class:`TileSightError`; the subclasses say which stage refused the input.
"""

from __future__ import annotations


class TileSightError(Exception):
    """Base of every error TileSight raises on purpose."""


class PlanError(TileSightError, ValueError):
    """A tile plan is inconsistent (cycle, bad trip count, tile larger than its tensor, ...)."""

    def __init__(self, field: str, value: object, problem: str) -> None:
        self.field = field
        self.value = value
        self.problem = problem
        super().__init__(f"{field}={value!r}: {problem}")


class ProfileError(TileSightError, ValueError):
    """A hardware profile is missing, unknown, or has an invalid field."""


class UnknownProfileError(ProfileError, KeyError):
    """An unknown profile name; the message lists the known ones."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown hardware profile {name!r}; known profiles: {', '.join(known)}")

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.args[0]


class SettingError(TileSightError, ValueError):
    """An option or environment variable holds a value TileSight does not take; names it and what it takes."""


class LaunchError(TileSightError, ValueError):
    """The plan cannot launch on the GPU (shared memory, registers or threads beyond its limits)."""

    def __init__(self, field: str, value: object, limit: object, hw: str) -> None:
        self.field = field
        self.value = value
        self.limit = limit
        super().__init__(f"{field}={value!r} exceeds {hw}'s limit of {limit!r}: the kernel cannot launch")


class FrontendError(TileSightError):
    """A frontend met a construct it does not model; names the construct and its source location."""

    def __init__(self, message: str, *, construct: str | None = None, location: str | None = None) -> None:
        self.construct = construct
        self.location = location
        where = f" at {location}" if location else ""
        super().__init__(f"{message}{where}")


class UnsupportedOpError(FrontendError):
    """An IR op the walker does not model."""

    def __init__(self, op: str, kernel: str, location: str | None = None) -> None:
        super().__init__(
            f"kernel {kernel!r} uses {op!r}, which TileSight does not model", construct=op, location=location
        )


class KernelCompileError(FrontendError):
    """The kernel's own compiler refused it with these arguments and this config (a type or shape mismatch,
    a failed ``tl.static_assert``): names the kernel, the source line and the compiler's own words.

    One line, like every error the command line prints: the failing statement is quoted after the reason.
    ``compiler_error`` is the compiler's exception class (``CompileTimeAssertionFailure`` for a
    ``tl.static_assert``: a config Triton's autotuner skips rather than fails on), ``reason`` its message
    without the source excerpt, ``excerpt`` the excerpt (the source up to the failing line, a caret under it).
    """

    def __init__(
        self,
        kernel: str,
        reason: str,
        *,
        compiler: str,
        compiler_error: str,
        location: str | None = None,
        excerpt: str = "",
    ) -> None:
        self.kernel = kernel
        self.reason = reason
        self.compiler_error = compiler_error
        self.excerpt = excerpt
        where = f" at {location}" if location else ""
        text = f"{compiler} could not compile kernel {kernel!r}{where} with these arguments and config: "
        text += reason
        code = [line.strip() for line in excerpt.splitlines() if line.strip() and set(line.strip()) != {"^"}]
        if code:
            text += f" (in `{code[-1]}`)"
        super().__init__(text, construct=compiler_error)
        self.location = location


class KernelArgumentError(FrontendError, TypeError):
    """The arguments do not bind to the kernel's parameters as Triton's launcher binds them (one missing, one
    given twice, too many): Triton's own words, naming the kernel and its parameters. A TypeError, as the
    same call raises at a real launch."""


class UnknownLaunchOptionError(FrontendError, KeyError):
    """A keyword that is neither a parameter of the kernel nor a launch option (``num_wraps``); a KeyError,
    as Triton raises it at a real launch."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.args[0]


class LaunchOptionError(FrontendError, ValueError):
    """A launch option the GPU's compiler backend refuses (``num_warps=3``: not a power of two): names the
    options and the backend's reason. A ValueError, as the option's value is wrong, not its name."""


class VersionError(FrontendError):
    """An installed frontend library outside the supported version range."""


class MissingDependencyError(TileSightError, ImportError):
    """An optional package that one path needs (scipy's exact SDCM form, rich rendering, libcst source
    discovery) is not installed; names the package and the path."""

    def __init__(self, package: str, needed_for: str) -> None:
        self.package = package
        self.needed_for = needed_for
        super().__init__(f"{needed_for} needs the package {package!r}, which is not installed")
