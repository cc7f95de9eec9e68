"""A clip's measures as numbers for scripts (`rigedit report --json`) and the report's table.

Keys (units in the names; "height" is the figure's height, `height_m`, so that figures of any
size compare; shares are of the frames of motion, 0..1; None where a measure does not apply,
e.g. no two legs found):

    frames, fps, height_m          the clip; the height every measure is scaled by (file metres)
    first_frame                    1 when frame 0 is a reference pose left out of every measure
    foot_skate_share               frames a low foot slides over 1/20 s (skate.py)
    foot_contact_share             frames counted as contacts by that measure
    grounded_share, locked_share   frames with a foot grounded / locked (contacts.py), both feet
    locked_spans                   locked runs, both feet
    slide_mm, slide_per_height     travel over the locked spans, both feet
    contacts                       the same per foot: {"left": {grounded_share, locked_share, locked_spans, slide_mm}, ...}
    ground_penetration_share       frames with a foot point below y = 0 (ground.py)
    ground_penetration_max_height, ground_penetration_max_mm, ground_penetration_frame
    self_penetration_frame_share   frames with a hand, forearm, shin or foot inside the body (self_contact.py)
    self_penetration_point_share   limb points inside, over all frames
    self_penetration_max_height, self_penetration_frame, self_penetration_parts ({part: frame share}),
    self_penetration_joint         the limb joint nearest the deepest point (the report's still marks it)
    mesh_penetration_vertex_share  forearm, hand, shin and foot vertices of the skinned mesh inside the
                                   torso or a leg, over all frames (mesh_contact.py; None without a mesh)
    mesh_penetration_frame_share, mesh_penetration_max_height, mesh_penetration_frame, mesh_limb_vertices
    mesh_penetration_joint         the limb joint nearest the deepest vertex (the report's still marks it)
    jitter_mean_jerk_height_per_s3, jitter_spike_count, jitter_spike_frames, jitter_threshold_height_per_s3,
    jitter_spike_joints            per spike frame, the joint whose jerk spikes (the report's still marks it)
    limit_max_deg, limit_seconds, limit_share, limit_joints   (None without --rig's limits)
    lint_findings                  {kind: {severity: count}}; lint_findings_total, lint_errors
    fault_share_sum                the sum of the fault shares (skate, ground, self and mesh penetration,
                                   limits, jitter spikes / frames): the report's "worst first" order
    notes                          what a reader should know (no legs found, feet far off y = 0)
"""
from __future__ import annotations

# (key, column label, how to show it) for the report's table, histograms and comparisons;
# lower is better for all but HIGHER_IS_BETTER.
METRICS = (
    ("foot_skate_share", "foot skate", "share"),
    ("slide_mm", "locked slide (mm)", "number"),
    ("locked_share", "locked", "share"),
    ("ground_penetration_share", "below ground", "share"),
    ("ground_penetration_max_mm", "deepest below (mm)", "number"),
    ("self_penetration_frame_share", "self-penetration", "share"),
    ("self_penetration_point_share", "limb points inside", "share"),
    ("mesh_penetration_vertex_share", "limb vertices inside (mesh)", "share"),
    ("jitter_mean_jerk_height_per_s3", "mean jerk (h/s³)", "number"),
    ("jitter_spike_count", "jerk spikes", "count"),
    ("limit_max_deg", "past limit (°)", "number"),
    ("limit_seconds", "past limit (s)", "number"),
    ("lint_findings_total", "lint findings", "count"),
    ("lint_errors", "lint errors", "count"),
)
# locked_share is "higher is better" for a walk; listed for reading, not ranked.
HIGHER_IS_BETTER = {"locked_share"}
