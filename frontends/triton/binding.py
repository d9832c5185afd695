"""Bind a Triton kernel's launch arguments the way Triton does, without a GPU.

Triton's own binder (``create_function_from_signature`` in ``triton.runtime.jit``, present from 3.6 to 3.9)
runs over the arguments, so a wrong count or type fails with Triton's message, and integers are specialised
exactly as at launch (``1`` becomes a constexpr, multiples of 16 gain ``tt.divisibility``). Tensor arguments
(TensorSpec, torch tensors on any device, numpy arrays) are replaced by :class:`_PointerProxy` objects whose
``data_ptr()`` is 0: the allocation is taken to be 16-byte aligned, as every torch allocation is.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field
from typing import Any

from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import make_backend
from triton.runtime.jit import create_function_from_signature

from tilesight.dtypes import dtype_bytes, is_float
from tilesight.errors import FrontendError, KernelArgumentError, LaunchOptionError, UnknownLaunchOptionError
from tilesight.hardware import HardwareProfile
from tilesight.tensorspec import TensorSpec, as_tensor_spec, is_tensor_like

try:  # host-side TMA descriptors (Triton >= 3.4)
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # pragma: no cover - older Triton
    TensorDescriptor = None  # type: ignore[assignment,misc]


class _DtypeProxy:
    """Enough of a torch dtype for Triton's specialisation and TensorDescriptor checks."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.itemsize = max(1, int(dtype_bytes(name)))
        self.is_floating_point = is_float(name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"dtype({self.name})"


_DTYPES: dict[str, _DtypeProxy] = {}


def _dtype_proxy(name: str) -> _DtypeProxy:
    """One proxy per dtype, alive for the process: Triton's native specialiser caches by dtype identity,
    so a short-lived proxy whose address is reused by another dtype would be mistaken for it."""
    proxy = _DTYPES.get(name)
    if proxy is None:
        proxy = _DTYPES[name] = _DtypeProxy(name)
    return proxy


class _PointerProxy:
    """A tensor argument as Triton's binder sees it: a dtype and a 16-byte-aligned data pointer."""

    def __init__(self, spec: TensorSpec) -> None:
        self.spec = spec
        self.dtype = _dtype_proxy(spec.dtype)
        self.shape = spec.shape

    def data_ptr(self) -> int:
        return 0

    def stride(self, dim: int | None = None) -> Any:
        return self.spec.stride(dim)


def tensor_descriptor(tensor: Any, block_shape: list[int], padding: str = "zero") -> Any:
    """A host-side TMA descriptor (``triton.tools.tensor_descriptor.TensorDescriptor``) over a tensor
    without data (a TensorSpec, a torch tensor on any device, a numpy array), for ``estimate`` and
    ``kernel.predict``. Triton's own checks run (16-byte strides, unit last stride, block shape)."""
    if TensorDescriptor is None:  # pragma: no cover - older Triton
        raise ImportError("host-side tensor descriptors need triton.tools.tensor_descriptor (Triton >= 3.4)")
    spec = as_tensor_spec(tensor)
    return TensorDescriptor(
        _PointerProxy(spec), list(spec.shape), list(spec.stride()), list(block_shape), padding
    )


@dataclass(frozen=True)
class Binding:
    """One launch's arguments after Triton's binding and specialisation.

    ``key`` identifies the compiled specialisation (Triton's own cache key: specialisation plus options);
    ``scalars`` holds the runtime integer/float arguments by name, ``tensors`` the tensor (or descriptor base)
    arguments, ``constexprs`` the constexpr values by name (including integers Triton folded to constants).
    """

    fn_name: str
    key: str
    signature: dict[str, str]
    constexprs: dict[tuple[int, ...], Any]
    attrs: dict[tuple[int, ...], Any]
    options: Any
    meta: dict[str, Any]
    scalars: dict[str, Any]
    tensors: dict[str, TensorSpec]
    descriptors: dict[str, TensorSpec] = field(default_factory=dict)


def target_of(hw: HardwareProfile) -> GPUTarget:
    """The explicit Triton target of a hardware profile (no device query)."""
    return GPUTarget(hw.triton_backend, hw.triton_arch, hw.warp_size)


@functools.lru_cache(maxsize=16)
def backend_for(backend: str, arch: int | str, warp_size: int) -> Any:
    return make_backend(GPUTarget(backend, arch, warp_size))


_BINDERS: dict[tuple[int, str], Any] = {}


def _binder(jit_fn: Any, backend: Any, target_key: str) -> Any:
    key = (id(jit_fn), target_key)
    binder = _BINDERS.get(key)
    if binder is None:
        binder = create_function_from_signature(jit_fn.signature, jit_fn.params, backend)
        _BINDERS[key] = binder
    return binder


_OPTIONS: dict[tuple[str, tuple[tuple[str, Any], ...]], Any] = {}


def _options(backend: Any, target_key: str, launch_opts: dict[str, Any], kernel: str = "") -> Any:
    """The backend's parsed options (frozen), cached by the launch options when they are hashable; a
    :class:`LaunchOptionError` naming the options where the backend refuses them (its checks are asserts)."""
    try:
        key = (target_key, tuple(sorted(launch_opts.items())))
        hash(key)
    except TypeError:
        return _parsed(backend, launch_opts, kernel)
    options = _OPTIONS.get(key)
    if options is None:
        options = _OPTIONS[key] = _parsed(backend, launch_opts, kernel)
    return options


def _parsed(backend: Any, launch_opts: dict[str, Any], kernel: str) -> Any:
    try:
        return backend.parse_options(dict(launch_opts))
    except (AssertionError, ValueError, TypeError) as e:
        given = ", ".join(f"{k}={v!r}" for k, v in sorted(launch_opts.items()))
        why = str(e) or type(e).__name__
        raise LaunchOptionError(
            f"kernel {kernel!r}: Triton's {type(backend).__name__} refuses the launch options ({given}): "
            f"{why}",
            construct="launch options",
        ) from e


def _wrap(value: Any) -> tuple[Any, TensorSpec | None, TensorSpec | None]:
    """(what Triton's binder gets, the tensor spec, the descriptor's base spec)."""
    if TensorDescriptor is not None and isinstance(value, TensorDescriptor):
        base = value.base.spec if isinstance(value.base, _PointerProxy) else as_tensor_spec(value.base)
        desc = TensorDescriptor(
            _PointerProxy(base),
            list(value.shape),
            list(value.strides),
            list(value.block_shape),
            value.padding,
        )
        return desc, None, base
    if is_tensor_like(value):
        spec = as_tensor_spec(value)
        return _PointerProxy(spec), spec, None
    return value, None, None


def bind(jit_fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile) -> Binding:
    """Bind ``args``/``kwargs`` (kernel arguments, constexprs and launch options such as ``num_warps``)."""
    target = target_of(hw)
    backend = backend_for(target.backend, target.arch, target.warp_size)
    tensors: dict[str, TensorSpec] = {}
    descriptors: dict[str, TensorSpec] = {}
    names = [p.name for p in jit_fn.params]
    wrapped_args = []
    for i, a in enumerate(args):
        w, spec, base = _wrap(a)
        wrapped_args.append(w)
        if i < len(names):
            if spec is not None:
                tensors[names[i]] = spec
            if base is not None:
                descriptors[names[i]] = base
    wrapped_kwargs = {}
    for k, v in kwargs.items():
        w, spec, base = _wrap(v)
        wrapped_kwargs[k] = w
        if spec is not None:
            tensors[k] = spec
        if base is not None:
            descriptors[k] = base
    target_key = f"{target.backend}:{target.arch}:{target.warp_size}"
    binder = _binder(jit_fn, backend, target_key)
    try:
        bound_args, specialization, launch_opts = binder(*wrapped_args, **wrapped_kwargs)
    except TypeError as e:  # Triton's launcher's own binding error, its function named dynamic_func
        why = str(e).replace("dynamic_func()", f"{jit_fn.__name__}()")
        raise KernelArgumentError(
            f"kernel {jit_fn.__name__!r}: {why}; its parameters: {', '.join(names)}", construct="arguments"
        ) from e
    options = _options(backend, target_key, launch_opts, jit_fn.__name__)
    for k in launch_opts:
        if k not in options.__dict__ and k not in names:
            # Triton's message, with the kernel named
            raise UnknownLaunchOptionError(
                f"Keyword argument {k} was specified but unrecognised: it is neither a parameter of kernel "
                f"{jit_fn.__name__!r} nor a launch option",
                construct=k,
            )
    sigvals = [s[0] for s in specialization]
    signature = dict(zip(names, sigvals, strict=True))
    constexprs: dict[tuple[int, ...], Any] = {}
    attrs: dict[tuple[int, ...], Any] = {}
    values = list(bound_args.values())
    for i, (ty, spec_attr) in enumerate(specialization):
        if ty == "constexpr":
            constexprs[(i,)] = values[i]
        elif isinstance(spec_attr, str) and spec_attr:
            attrs[(i,)] = backend.parse_attr(spec_attr)
    meta = dict(bound_args)
    scalars = {n: v for n, v in bound_args.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    opts = sorted(options.__dict__.items(), key=lambda kv: kv[0])
    key = f"{jit_fn.cache_key}|{specialization}|{opts}|{target}"
    return Binding(
        fn_name=jit_fn.__name__,
        key=key,
        signature=signature,
        constexprs=constexprs,
        attrs=attrs,
        options=options,
        meta=meta,
        scalars=scalars,
        tensors=tensors,
        descriptors=descriptors,
    )


def resolve_grid(grid: Any, meta: dict[str, Any]) -> tuple[int, int, int]:
    """Triton's grid (a tuple or a callable of the meta dict) as three launch extents."""
    g = grid(meta) if callable(grid) else grid
    if not isinstance(g, str | bytes) and hasattr(g, "__index__"):
        g = (g,)
    if isinstance(g, str | bytes) or not isinstance(g, tuple | list):
        raise FrontendError(
            f"grid {g!r}: a tuple of 1 to 3 integer extents, an integer, or a callable of the "
            "meta-parameters returning one",
            construct="grid",
        )
    try:  # as Triton's launcher reads them: integers (Python's, numpy's), never a float it would refuse
        g = tuple(operator.index(x) for x in g)
    except TypeError as e:
        raise FrontendError(f"grid {g!r}: every extent must be an integer ({e})", construct="grid") from e
    if not g:
        raise FrontendError(f"grid {g!r} must have 1 to 3 extents", construct="grid")
    if len(g) > 3:
        # Triton's launcher (JITFunction.run) reads the first three and ignores the rest: trailing 1s launch
        # what they say (FlagGems' cumsum passes (M, ctas, 1, 1)); a larger one would launch no more programs
        if any(x != 1 for x in g[3:]):
            raise FrontendError(
                f"grid {g!r}: Triton's launcher ignores extents past the third, so the programs they count "
                "would never run; pass a grid of 1 to 3 extents",
                construct="grid",
            )
        g = g[:3]
    if any(x < 1 for x in g):  # Triton launches nothing for an empty grid: there is no kernel time to predict
        raise FrontendError(
            f"grid {g!r} launches no programs: every extent must be at least 1", construct="grid"
        )
    return (g + (1, 1))[:3]  # type: ignore[return-value]
