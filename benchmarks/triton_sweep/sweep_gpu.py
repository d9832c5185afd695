"""GPU side of the Triton sweep: compile a case (in a worker), build its tensors, time it, spot-check it.

Needs torch and triton only (no tilesight import); the repository root must be on ``sys.path`` so that the
``kernels.triton.*`` modules named in the cases import.
"""

from __future__ import annotations

import importlib
from typing import Any

import torch
import triton
import triton.testing

TORCH_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float32": torch.float32,
    "int8": torch.int8,
    "int32": torch.int32,
    "int64": torch.int64,
}
# Spot-check bound on the error relative to the reference's largest magnitude: outputs are rounded to 16 bits
# (bf16 keeps 8 significant bits: 2^-8 = 0.4%) after fp32 arithmetic, so a few percent flags only real bugs.
SPOT_CHECK_REL_TOL = 2e-2
FP8_SCALE = 0.5  # fp8 inputs are scaled so products of many randn draws stay in e4m3's range
DEVICE = "cuda"  # the CPU smoke test sets "cpu" and runs the kernels under TRITON_INTERPRET=1


def load_kernel(spec: str):
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def _launch_args(rec: dict, tensor_of) -> list[Any]:
    """Launch arguments; ``tensor_of(spec, position)`` makes (or reuses) the tensor for one argument slot."""
    return [tensor_of(a["tensor"], i) if "tensor" in a else a["scalar"] for i, a in enumerate(rec["args"])]


def compile_case(rec: dict) -> tuple[str, str, str, int]:
    """Worker: compile ``rec``'s kernel into Triton's cache. Returns (id, status, reason, shared bytes).

    Tensors are passed as dtypes (Triton's warmup wraps them in zero-address mock tensors, which specialise
    like any 16-byte aligned allocation), so no memory is allocated here.
    """
    kernel = load_kernel(rec["kernel"])
    args = _launch_args(rec, lambda t, _i: TORCH_DTYPES[t["dtype"]])
    try:
        compiled = kernel.warmup(
            *args,
            grid=tuple(rec["grid"]),
            num_warps=rec["num_warps"],
            num_stages=rec["num_stages"],
            **rec["constexprs"],
        )
    except Exception as e:  # recorded as the case's skip reason, never swallowed
        return rec["id"], "skipped", f"compile failed: {type(e).__name__}: {str(e)[:300]}", -1
    return rec["id"], "ok", "", int(compiled.metadata.shared)


class TensorPool:
    """Tensors by argument position and spec, reused across cases of one problem (inputs random, never zeros).

    The position is part of the key: two arguments of one shape and dtype (x and y of an add, A and B of a
    square GEMM, q/k/v of attention) must be distinct buffers, or the kernel reads half the bytes it would in
    use and the L2 sees reuse that real callers never give it.
    """

    def __init__(self) -> None:
        self._pool: dict[tuple, torch.Tensor] = {}

    def clear(self) -> None:
        self._pool.clear()
        if DEVICE == "cuda":
            torch.cuda.empty_cache()

    def get(self, t: dict, position: int) -> torch.Tensor:
        if t["init"] == "zeros":  # never shared: an atomically accumulated output must start at zero
            return self._make(t)
        key = (position, tuple(t["shape"]), t["dtype"], tuple(t["strides"]), t["init"])
        if key not in self._pool:
            self._pool[key] = self._make(t)
        return self._pool[key]

    @staticmethod
    def _make(t: dict) -> torch.Tensor:
        dtype = TORCH_DTYPES[t["dtype"]]
        shape, strides = tuple(t["shape"]), tuple(t["strides"])
        out = torch.empty_strided(shape, strides, dtype=dtype, device=DEVICE)
        init = t["init"]
        if init == "empty":
            return out
        if init == "zeros":  # an atomically accumulated output
            return out.zero_()
        if init.startswith("randint:"):
            return out.copy_(torch.randint(0, int(init.split(":")[1]), shape, device=DEVICE))
        if init != "randn":
            raise ValueError(f"unknown tensor init {init!r}")
        values = torch.randn(shape, device=DEVICE)
        if dtype == torch.float8_e4m3fn:
            values = values * FP8_SCALE
        return out.copy_(values.to(dtype))


def launch(rec: dict, kernel, args: list[Any]):
    return kernel[tuple(rec["grid"])](
        *args, num_warps=rec["num_warps"], num_stages=rec["num_stages"], **rec["constexprs"]
    )


def reference(rec: dict, args: list[Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """(kernel output, torch fp32 reference) for the spot check, after the kernel has run once."""
    p = rec["problem"]
    op = p["op"]
    if op == "gemm":
        a, b, c = args[:3]
        return c, a.float() @ b.float()
    if op == "attention":
        q, k, v, o = args[:4]
        sdpa = torch.nn.functional.scaled_dot_product_attention
        return o, sdpa(q.float(), k.float(), v.float(), is_causal=p["causal"])
    if op == "add":
        return args[2], args[0].float() + args[1].float()
    if op == "softmax":
        return args[1], torch.softmax(args[0].float(), dim=-1)
    if op == "layernorm":
        x, y, w, b = args[:4]
        return y, torch.nn.functional.layer_norm(x.float(), (x.shape[1],), w.float(), b.float(), eps=args[9])
    if op == "rmsnorm":
        x, y, w = args[:3]
        xf = x.float()
        return y, xf * torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + args[6]) * w.float()
    if op == "transpose":
        return args[1], args[0].float().t()
    if op == "gather":
        table, idx, out = args[:3]
        return out, table[idx.long()].float()
    if op == "gated":
        x, out, d = args[0].float(), args[1], args[2]
        gate, up = x[:, :d], x[:, d:]
        return out, gate * torch.sigmoid(gate) * up
    if op == "rope":
        x, cos, sin, out = args[0].float(), args[1], args[2], args[3]
        pos = torch.arange(x.shape[0], device=x.device) % cos.shape[0]
        c, s = cos[pos][:, None, :], sin[pos][:, None, :]
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
        return out.reshape(out.shape[0], -1), torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1).reshape(
            x.shape[0], -1
        )
    if op == "add_rmsnorm":
        h = args[0].float() + args[1].float()
        return args[4], h * torch.rsqrt(h.pow(2).mean(dim=1, keepdim=True) + args[6]) * args[2].float()
    if op == "dropout":
        # the kept elements are the input scaled by 1 / (1 - p), the rest zero (which are kept is random)
        x, out = args[0].float(), args[1]
        return out, torch.where(out != 0, x / (1.0 - p["p"]), torch.zeros_like(x))
    if op == "gelu":
        approx = "tanh" if p["approx"] else "none"
        return args[1], torch.nn.functional.gelu(args[0].float(), approximate=approx)
    if op == "quant_rows":
        # the dequantised row against the input: within half a unit of the row's scale
        x, q, scale = args[0].float(), args[1], args[2]
        return q.float() * scale[:, None], x
    if op in ("scan_rows", "scan_seq"):  # along dim 1: a row's columns, a [batch, length, dim] sequence
        return args[1], torch.cumsum(args[0].float(), dim=1)
    if op == "scan_recurrence":
        # h_t = a_t h_{t-1} + x_t along dim 1 of [batch, length, dim], on the slice spot_check compares
        a, x, h = args[0][:512].float(), args[1][:512].float(), args[2]
        want, carry = torch.empty_like(a), torch.zeros_like(a[:, 0])
        for t in range(a.shape[1]):
            carry = a[:, t] * carry + x[:, t]
            want[:, t] = carry
        return h[:512], want
    raise ValueError(f"{rec['id']}: no reference for op {op!r}")


def spot_check(rec: dict, args: list[Any]) -> float:
    """Max abs error of the kernel's output (already computed) against torch over the reference's largest
    magnitude (at least 1), on a bounded slice of rows."""
    got, want = reference(rec, args)
    rows = min(got.shape[0], 512)  # a slice keeps the comparison cheap on huge outputs
    scale = max(1.0, float(want[:rows].abs().max().item()))
    return float((got[:rows].float() - want[:rows]).abs().max().item()) / scale


def measure(rec: dict, pool: TensorPool, *, check: bool) -> dict:
    """Launch ``rec`` once (raising Triton's OutOfResources if it cannot), optionally check it, time it."""
    kernel = load_kernel(rec["kernel"])
    args = _launch_args(rec, pool.get)
    compiled = launch(rec, kernel, args)
    torch.cuda.synchronize()
    out: dict[str, Any] = {
        "n_regs": int(compiled.n_regs),
        "n_spills": int(compiled.n_spills),
        "shared_bytes": int(compiled.metadata.shared),
    }
    if check and rec["problem"].get("check", True):  # a library's own kernels: its own tests check them
        err = spot_check(rec, args)
        out["max_rel_err"] = err
        if not err <= SPOT_CHECK_REL_TOL:
            out.update(status="wrong", reason=f"spot check: max relative error {err:.3g} vs torch")
            return out
        torch.cuda.synchronize()
    p50, p20, p80 = triton.testing.do_bench(
        lambda: launch(rec, kernel, args), warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]
    )
    out.update(status="ok", reason="", measured_us={"p50": p50 * 1e3, "p20": p20 * 1e3, "p80": p80 * 1e3})
    return out
