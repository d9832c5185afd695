"""tilesight.library.attention: the hand-written FlashAttention forward plan."""

from __future__ import annotations

import numpy as np

from tilesight.library.attention import attention_forward_plan
from tilesight.plan import LaunchOrder


def test_launch_order_is_query_block_fastest():
    # Triton's program_id(0) is the query block: launch indices walk m first, then the (batch x head) index
    plan = attention_forward_plan(1, 2, 512, 512, 64, block_m=128, block_n=64)
    assert plan.grid.dims == ("m", "bh")
    assert plan.grid.order is LaunchOrder.COLUMN_MAJOR
    # 512 / 128 = 4 query blocks per head, 2 heads: (0,0) (1,0) (2,0) (3,0) (0,1) ...
    coords = plan.grid.coordinates()
    np.testing.assert_array_equal(coords[:5], [[0, 0], [1, 0], [2, 0], [3, 0], [0, 1]])


def test_kv_reused_across_query_blocks_of_one_head():
    plan = attention_forward_plan(1, 2, 512, 512, 64, block_m=128, block_n=64)
    assert plan.tensor("k").reuse_dims == {"m"} and plan.tensor("v").reuse_dims == {"m"}
