"""IK solvers. Public API: two_bone_ik, fabrik, ccd and their batch forms (docs/ARCHITECTURE.md)."""

from .ccd_solve import ccd
from .chain_frames import ChainLimits
from .fabrik import FabrikResult, fabrik
from .fabrik_batch import FabrikBatchResult, fabrik_batch
from .fabrik_pose import solve_fabrik_pose
from .limits import ConeLimit, HingeLimit, Limit, clamp_bone, limit_error_deg
from .two_bone import TwoBoneResult, two_bone_ik
from .two_bone_batch import TwoBoneBatchResult, two_bone_ik_batch
from .two_bone_pose import solve_two_bone_pose
