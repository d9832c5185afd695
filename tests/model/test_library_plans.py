"""The hand-written library plans: MLA decode's 132 legal orders, and real kernel DAGs stay exhaustive."""

from __future__ import annotations

import networkx as nx
import pytest

from tilesight.hardware import load_profile
from tilesight.library.attention import attention_forward_plan
from tilesight.library.gemm import gemm_plan
from tilesight.library.mla_decode import mla_decode_body, mla_decode_plan
from tilesight.library.softmax import softmax_plan
from tilesight.model.evaluate import evaluate
from tilesight.model.schedule import MAX_DISTINCT_ORDERS
from tilesight.plan import body_graph


def test_mla_decode_body_has_11_actions_and_132_orders():
    body = mla_decode_body(64, 64, 512, 64, "bfloat16")
    assert len(body) == 11
    # paper section 3.4: 11! = 39,916,800 permutations, 132 legal topological orders
    assert sum(1 for _ in nx.all_topological_sorts(body_graph(body))) == 132


@pytest.mark.parametrize(
    "plan",
    [
        gemm_plan(4096, 4096, 4096, 128, 128, 64, group_m=8),
        attention_forward_plan(4, 32, 4096, 4096, 128),
        mla_decode_plan(64, 4096),
        softmax_plan(4096, 4096),
    ],
    ids=["gemm", "attention", "mla_decode", "softmax"],
)
def test_real_kernel_dags_stay_exhaustive(plan):
    r = evaluate(plan, load_profile("h200"))
    assert r.extras["order_search_exact"]
    assert r.latency_s > 0 and 0.0 <= r.overlap_rate <= 1.0
    assert MAX_DISTINCT_ORDERS >= 132


def test_mla_decode_plan_shapes():
    p = mla_decode_plan(8, 1024, block_h=64, block_n=64)
    assert p.grid.shape == (8, 2)  # 128 heads in blocks of 64
    loop = p.body[1]
    assert loop.trips == 16 and len(loop.body) == 11
    # kv tile: 64 tokens x 512 latent bf16 = 65,536 bytes
    assert p.tensor("kv").tile_bytes == 65_536


def test_attention_plan_flops():
    # per KV step: QK^T 2*128*64*128 + PV 2*128*128*64 = 4,194,304 FLOP; 64 KV steps, 32 x 1 tiles
    p = attention_forward_plan(1, 1, 4096, 4096, 128, block_m=128, block_n=64)
    r = evaluate(p, load_profile("h200"))
    dots = sum(a.flops for a in r.actions if a.kind == "dot")
    assert dots == pytest.approx(4_194_304 * 64 * 32)
