"""Variable-length batches: a kernel indexing with the elements of an integer tensor whose contents the caller
gives (``cu_seqlens[b]``) is read per block, from those contents."""

import math

import pytest

pytest.importorskip("tilelang")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tilesight.frontends.tilelang import TileLangFrontend  # noqa: E402
from tilesight.kernels.tilelang.flash_attention import flash_attention_varlen_fwd  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402
from tilesight.errors import UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")
H, D, BM, BN = 4, 64, 64, 64


def _plan(lens, causal=False, cu_arg=None):
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    total = int(cu[-1])
    func = flash_attention_varlen_fwd(len(lens), total, total, H, D, causal=causal, block_M=BM, block_N=BN)
    x = TensorSpec((total, H, D), "float16")
    cu = cu if cu_arg is None else cu_arg(cu)
    return TileLangFrontend().plan(func, (x, x, x, cu, cu, max(lens), x), {}, HW)


def _key_loop(plan) -> Loop:
    return next(n for n in plan.body if isinstance(n, Loop))


def test_each_sequence_streams_its_own_keys():
    lens = [300, 2000, 1024, 77]
    plan = _plan(lens)
    loop = _key_loop(plan)
    # the grid holds ceil(2000 / 64) = 32 query blocks per (head, sequence): every one runs its sequence's
    # ceil(len / 64) key blocks, whether or not it has query rows
    per_seq = [math.ceil(n / BN) for n in lens]
    assert plan.grid.blocks == 32 * H * len(lens)
    assert loop.mean_trips == pytest.approx(sum(per_seq) / len(lens))
    assert sorted(set(loop.trips_by_program)) == sorted(set(per_seq))
    assert any("trip count varies by block" in n for n in plan.notes)


def test_causal_blocks_stop_at_their_diagonal():
    lens = [100, 256]
    plan = _plan(lens, causal=True)
    want = []
    for n in lens:  # queries aligned to the end of their keys (here as many keys as queries)
        for bx in range(math.ceil(max(lens) / BM)):
            want.append(max(min(math.ceil(n / BN), math.ceil((bx + 1) * BM / BN)), 0))
    assert _key_loop(plan).mean_trips == pytest.approx(np.mean(want))


def test_equal_lengths_run_one_trip_count():
    loop = _key_loop(_plan([512] * 3))
    assert loop.trips == 512 // BN and loop.mean_trips in (None, 512 // BN)


def test_the_stored_rows_are_the_sequences_rows():
    lens = [100, 30]  # 2 query blocks per sequence: rows 64 + 36, and 30 + none
    plan = _plan(lens)
    store = next(a for a in plan.body if getattr(a, "kind", None) is ActionKind.STORE)
    tile = plan.tensor(store.tensor)
    mean_rows = sum(lens) / (2 * len(lens))  # 32.5 rows a block on average
    assert tile.tile_bytes == round(mean_rows) * D * 2
    assert any("keeps vary by block" in n for n in plan.notes)


def test_estimate_takes_a_cpu_tensor_and_a_tensorspec_with_values():
    torch = pytest.importorskip("torch")
    lens = [300, 700]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    total = int(cu[-1])
    func = flash_attention_varlen_fwd(2, total, total, H, D, block_M=BM, block_N=BN)
    x = TensorSpec((total, H, D), "float16")
    a = tilesight.estimate(func, x, x, x, torch.from_numpy(cu), torch.from_numpy(cu), 700, x, hw=HW)
    spec = TensorSpec((3,), "int32", values=cu)
    b = tilesight.estimate(func, x, x, x, spec, spec, 700, x, hw=HW)
    assert a.latency_s == b.latency_s > 0


def test_offsets_without_contents_are_refused_naming_the_tensor():
    with pytest.raises(UnsupportedOpError, match=r"pass 'cu_seqlens_q' as an integer numpy array"):
        _plan([128, 64], cu_arg=lambda cu: TensorSpec(cu.shape, "int32"))


def _first_step_kernel():
    import tilelang.language as T

    @T.prim_func
    def main(
        X: T.Tensor((4096, 64), "float16"), lens: T.Tensor((4,), "int32"), Y: T.Tensor((256, 64), "float32")
    ):
        with T.Kernel(4, threads=128) as bz:
            acc = T.alloc_fragment((64, 64), "float32")
            xs = T.alloc_shared((64, 64), "float16")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(lens[bz], 64), num_stages=2):
                T.copy(X[k * 64, 0], xs)
                if k == 0:  # the paged MLA decode example masks its first step only
                    T.clear(acc)
                for i, j in T.Parallel(64, 64):
                    acc[i, j] += xs[i, j]
            T.copy(acc, Y[bz * 64, 0])

    return main


def test_an_if_on_the_counter_of_a_loop_whose_length_varies_runs_its_share_of_all_iterations():
    lens = np.array([64, 128, 256, 1024], dtype=np.int32)  # 1 + 2 + 4 + 16 = 23 iterations, 4 first steps
    x, y = TensorSpec((4096, 64), "float16"), TensorSpec((256, 64), "float32")
    plan = TileLangFrontend().plan(_first_step_kernel(), (x, lens, y), {}, HW)
    loop = _key_loop(plan)
    assert loop.mean_trips == pytest.approx(23 / 4)
    guard = next(n for n in loop.body if isinstance(n, Loop))
    assert guard.work_trips == pytest.approx(4 / 23)


def _block_sparse_kernel(n_q=4, n_k=8):
    """Each query block streams only the key blocks its row of a block mask keeps (the mask row copied to a
    fragment first, as TileLang's block-sparse attention example does)."""
    import tilelang.language as T

    @T.prim_func
    def main(
        K: T.Tensor((n_k * 64, 64), "float16"),
        Mask: T.Tensor((n_q, n_k), "bool"),
        Y: T.Tensor((n_q * 64, 64), "float32"),
    ):
        with T.Kernel(n_q, threads=128) as bx:
            keep = T.alloc_fragment((n_k,), "bool")
            ks = T.alloc_shared((64, 64), "float16")
            acc = T.alloc_fragment((64, 64), "float32")
            T.copy(Mask[bx, :], keep)
            T.clear(acc)
            for k in T.Pipelined(n_k, num_stages=2):
                if keep[k]:
                    T.copy(K[k * 64, 0], ks)
                    for i, j in T.Parallel(64, 64):
                        acc[i, j] += ks[i, j]
            T.copy(acc, Y[bx * 64, 0])

    return main


def test_a_block_mask_copied_to_a_fragment_keeps_its_share_of_the_key_blocks():
    rng = np.random.default_rng(1)
    mask = rng.random((4, 8)) < 0.3
    mask[0, 0] = True  # at least one block kept
    k, y = TensorSpec((512, 64), "float16"), TensorSpec((256, 64), "float32")
    plan = TileLangFrontend().plan(_block_sparse_kernel(), (k, mask, y), {}, HW)
    loop = _key_loop(plan)
    guard = next(n for n in loop.body if isinstance(n, Loop))
    assert guard.work_trips == pytest.approx(mask.mean())
    dense = TileLangFrontend().plan(_block_sparse_kernel(), (k, np.ones((4, 8), bool), y), {}, HW)
    assert not any(isinstance(n, Loop) for n in _key_loop(dense).body)  # every block kept: no guard left


def test_a_block_mask_without_contents_is_refused_naming_it():
    k, y = TensorSpec((512, 64), "float16"), TensorSpec((256, 64), "float32")
    with pytest.raises(UnsupportedOpError, match="if/else on data read from 'keep'"):
        TileLangFrontend().plan(_block_sparse_kernel(), (k, TensorSpec((4, 8), "bool"), y), {}, HW)


@settings(max_examples=6, deadline=None)
@given(lens=st.lists(st.integers(1, 1500), min_size=1, max_size=6))
def test_the_key_loop_runs_each_sequences_own_block_count(lens):
    loop = _key_loop(_plan(lens))
    q_blocks = math.ceil(max(lens) / BM)  # every query block of a sequence streams all its keys
    want = [math.ceil(n / BN) for n in lens for _ in range(q_blocks) for _ in range(H)]
    assert loop.work_trips == pytest.approx(np.mean(want))
