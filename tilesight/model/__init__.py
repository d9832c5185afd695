"""The core model (paper sections 3.1-3.4, Algorithms 1 and 2): plan + profile -> Report.

* :mod:`.resources`: per-action resource vectors over the nine pipelines and per-region bandwidth shares;
* :mod:`.schedule`: list schedules of a body's action DAG and the best legal order (Eq. 4/5);
* :mod:`.envelope`: the prologue-steady-epilogue envelope (Eq. 2/3);
* :mod:`.tile`: one tile's program, evaluated recursively over nested loops;
* :mod:`.occupancy`: resident blocks per SM and waves;
* :mod:`.explain`: bottleneck and reason per phase;
* :mod:`.evaluate`: the whole kernel, full waves and tail, and the Report.

The entry point is :func:`tilesight.model.evaluate.evaluate` (``tilesight.estimate`` calls it). It is not
re-exported here, so that ``tilesight.model.evaluate`` stays the module.
"""
