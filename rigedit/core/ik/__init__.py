"""IK solvers. Public API: two_bone_ik, fabrik and their batch forms (see DESIGN.md)."""
