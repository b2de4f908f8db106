"""The audit sample's order: one seeded uniform shuffle of the pool.

Both a desk's dispatcher (which serves the order's prefix) and a team server's owner (who
stores it, so the server can judge that an ``audit`` label is the item due) draw it here,
so the two always agree.
"""

from __future__ import annotations

import numpy as np

AUDIT_SALT = 0xA0D17


def audit_order(candidate_ids: np.ndarray, seed: int) -> np.ndarray:
    """A seeded uniform random order of the whole pool: the audit sample is its prefix."""
    rng = np.random.default_rng([seed, AUDIT_SALT])
    return rng.permutation(np.sort(candidate_ids))


__all__ = ["AUDIT_SALT", "audit_order"]
