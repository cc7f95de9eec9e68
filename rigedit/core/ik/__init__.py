"""IK solvers. Public API: two_bone_ik, fabrik and their batch forms (see DESIGN.md)."""

from .two_bone import TwoBoneResult, two_bone_ik
from .two_bone_batch import TwoBoneBatchResult, two_bone_ik_batch
