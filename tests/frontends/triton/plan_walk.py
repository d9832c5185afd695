"""Walking a plan body in the Triton frontend tests: the actions of one kind (loops entered), the loops."""

from tilesight.plan import Loop


def actions(body, kind):
    """Every action of ``kind`` in ``body``, nested loops' bodies included, in program order."""
    for n in body:
        if isinstance(n, Loop):
            yield from actions(n.body, kind)
        elif n.kind is kind:
            yield n


def loops(body):
    """The loops directly in ``body``."""
    return [n for n in body if isinstance(n, Loop)]
