"""The error a retarget raises on input it cannot use (a ValueError, as every reader's is)."""
from __future__ import annotations


class RetargetError(ValueError):
    """A skeleton or clip the retarget cannot use; the message names which and why."""
