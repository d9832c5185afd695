"""Cross-device tiles (paper section 3.6): network hierarchy, collectives as routed stages, fused kernels."""

from __future__ import annotations

from .api import collective_cost, estimate_collective, resolve_network
from .collectives import CollectiveCost, CollectiveOp, choose_collective, get_algorithm, register_algorithm
from .fused import FusedEstimate, ag_gemm_tile_plan, estimate_fused, gemm_rs_tile_plan
from .network import NetworkHierarchy, load_network, networks
from .stages import Exchange, Stage, StageCost, sequence_cost, stage_cost
from .tilemap import DistributedTileMap, Placement, RemoteAccess, TensorPlacement

__all__ = [
    "CollectiveCost",
    "CollectiveOp",
    "DistributedTileMap",
    "Exchange",
    "FusedEstimate",
    "NetworkHierarchy",
    "Placement",
    "RemoteAccess",
    "Stage",
    "StageCost",
    "TensorPlacement",
    "ag_gemm_tile_plan",
    "choose_collective",
    "collective_cost",
    "estimate_collective",
    "estimate_fused",
    "gemm_rs_tile_plan",
    "get_algorithm",
    "load_network",
    "networks",
    "register_algorithm",
    "resolve_network",
    "sequence_cost",
    "stage_cost",
]
