"""A rig's frame packed for the compiled frame (ik/frame_kernel.py; docs/ARCHITECTURE.md,
core: one frame evaluation), as full_body_tables.py packs the full-body solve.

`FrameTables`: what stays put while the chains' shape and settings do (joint indices, each
chain's compiled row as its method names it, limits and settings), made again when any of
that changes. `FrameState`: every chain's last solve as arrays (rotations, what it was
solved for, a reaching chain's limited warm start), packed from the rig's ChainStates and
unpacked back into them when Python asks (rig_state.RigState.states).
"""
from __future__ import annotations

import struct

import numpy as np

from .ik.frame_codes import (
    C_CAP, C_FOLLOW, C_LIMITED, C_N, C_PARENT, C_ROOT_LIMITED, C_ROW, C_SIZE, C_SLOT, F_SIZE, I_SIZE, J_AXIS, J_DIR,
    J_FRAME, J_IK, J_KIND, J_LENGTH, J_LOCAL_AXIS, J_OFFSET, J_PARAMS, J_PLAN_KIND, J_PLAN_PARAMS, J_POINT, J_REST,
    J_SHARE, J_SIZE, S_BASE, S_ERROR, S_FINAL, S_GOAL, S_HAS_POLE, S_LAST, S_POLE,
    S_REACHED, S_ROOT_DIR, S_SAME_SETTINGS, S_SIZE, S_WARM, S_WARM_BASE, T_CHAIN, T_JOINT, T_PARENT, T_SIZE,
)
from .ik.chain_frames import LimitPlan, PreparedLimits
from .rig_chain import ChainState, LimitedWarm, SolveInputs, make
from .chain_setup import ChainSetup


def tables_key(rig, stamps: list) -> tuple:
    """What the tables are made from besides the skeleton, compared every frame: the chains
    in order, their settings' stamps (Chain.stamp, new whenever a packed setting changes,
    kept by the chains on the rig's FrameBoard, and compared alone while they hold: each
    chain's stamp is its own, so the same stamps are the same chains in the same order), and
    whether follow-clip chains follow (the rig has a clip)."""
    return (follows_clip(rig), tuple(rig.chains_by_name), list(stamps))


def follows_clip(rig) -> bool:
    """Whether the rig's follow-clip chains follow (it has a clip): packed into the tables."""
    return rig.clip is not None


class FrameTables:
    """The chains as the compiled frame takes them (frame_codes.py gives the layout)."""

    def __init__(self, rig, key: tuple, offsets: dict) -> None:
        chains = rig.chains_by_name
        self.key, self.names = key, tuple(chains)
        self.parents = np.array(rig.parents, dtype=np.int64)
        self.settings = [(ch.solver, ch.tolerance, ch.max_iterations, ch.reach_clamp, ch.softness) for ch in chains.values()]
        self.limits = [ch.limit_key for ch in chains.values()]
        idx = [rig.plans[n].idx for n in self.names]
        self.slots = np.cumsum([0] + [len(i) for i in idx])
        self.joints = np.array([j for i in idx for j in i], dtype=np.int64)
        self.static: list = []  # (first slot, columns, values) set in every FrameState: aims' shares and rests, limit plans
        ints = np.zeros((len(idx), C_SIZE), np.int64)
        floats = np.zeros((len(idx), F_SIZE))
        for c, (name, ch) in enumerate(chains.items()):
            plan = rig.plans[name]
            ints[c, C_ROW] = ch.kind.method.frame_row
            ints[c, C_SLOT], ints[c, C_N], ints[c, C_PARENT] = self.slots[c], len(plan.idx), plan.parent
            ints[c, C_CAP], ints[c, C_FOLLOW] = ch.max_iterations, key[0] and ch.follow_clip
            setup = ChainSetup(ch, offsets[name])
            floats[c] = ch.kind.method.frame_floats(ch, setup)
            shares = ch.kind.method.frame_shares(ch)
            if shares is not None:
                self.static.append((self.slots[c], J_SHARE, np.asarray(shares, dtype=np.float64)[:, None]))
                self.static.append((self.slots[c], J_REST, rig.skeleton.rest_rotations[plan.idx]))
            if setup.plan is not None:  # a cold start prepares its limits from it (ik/frame_cold.py)
                ints[c, C_LIMITED], ints[c, C_ROOT_LIMITED] = 1, setup.root_limited
                kinds, params, axes = _plan_codes(setup.plan)
                self.static += [(self.slots[c], J_PLAN_KIND, kinds[:, None]), (self.slots[c], J_PLAN_PARAMS, params),
                                (self.slots[c], J_LOCAL_AXIS, axes)]
        self.ints, self.floats = ints, floats
        table = np.zeros((max(len(self.parents), len(self.joints), len(idx)), T_SIZE), np.int64)
        table[:len(self.parents), T_PARENT], table[:len(self.joints), T_JOINT] = self.parents, self.joints
        table[:len(idx), T_CHAIN:] = ints
        self.table, self.floats = table, floats
        # Up to two caps of pass errors a chain: a stall retried from the animated pose
        # reports the passes of its two solves (ik/frame_reach.retry).
        cap = 2 * max([ch.max_iterations for ch in chains.values()] + [1])
        # The frame's inputs and report numbers (then each pass's error), filled anew every frame.
        self.inputs, self.out = np.empty((len(idx), I_SIZE)), np.empty((len(idx), 4 + cap))
        # Read back with struct: every chain's four report numbers as one flat tuple (the
        # rest of each row of `out` skipped as pad bytes), and each chain's name with the
        # byte offset of its row of pass errors, unpacked as one tuple; a third of the cost
        # of slicing the array and converting the slices.
        row, size = self.out.itemsize * (4 + cap), self.out.itemsize * 4
        self.numbers_row = struct.Struct(f"4d{row - size}x" * (len(idx) - 1) + "4d" * min(len(idx), 1))
        self.errors_rows = [struct.Struct(f"{k}d").unpack_from for k in range(cap + 1)]  # by count: no more read
        self.error_rows = [(name, self.out.itemsize * (c * (4 + cap) + 4)) for c, name in enumerate(self.names)]
        # This frame's inputs (goal, pole, has_pole, weight per chain, in order) are the
        # chains' packed rows (frame_codes.input_row) joined and copied into `inputs`'
        # memory through this view, several times faster than numpy's conversion of a
        # list of floats (or a struct of them all packed every frame).
        self.input_bytes = memoryview(self.inputs.view(np.uint8).reshape(-1))  # (a cast refuses no chains)


class FrameState:
    """Every chain's last solve as the compiled frame keeps it (frame_kernel.solve_frame's
    `state` and `slots`). `ahead`: solved here since the ChainStates were last made from it."""

    def __init__(self, tables: FrameTables) -> None:
        c, slots = len(tables.names), int(tables.slots[-1])
        self.tables = tables
        self.state, self.slots = np.zeros((c, S_SIZE)), np.zeros((slots, J_SIZE))
        for s, col, values in tables.static:
            self.slots[s:s + len(values), col:col + values.shape[1]] = values
        self.ahead = False

    def pack(self, states: dict) -> None:
        """Fill from the rig's ChainStates."""
        t = self.tables
        st, js = self.state, self.slots
        for c, name in enumerate(t.names):
            state = states.get(name)
            if state is None:
                continue
            s, m = t.slots[c], t.slots[c + 1] - t.slots[c] - 1
            js[s:s + m, J_IK:J_IK + 4] = state.ik
            inputs = state.inputs
            limits_same = state.limits is t.limits[c] or state.limits == t.limits[c]
            settings = inputs.settings
            # A saved solution of other settings (rig_pose.STALE) is a warm start, never an answer.
            same = limits_same and type(settings) is tuple and (settings[0],) + settings[3:] == t.settings[c]
            st[c, S_LAST], st[c, S_SAME_SETTINGS] = 1.0, float(same)
            st[c, S_ERROR], st[c, S_REACHED], st[c, S_FINAL] = state.error, float(state.reached), float(state.final)
            st[c, S_BASE:S_BASE + 3], st[c, S_BASE + 3:S_BASE + 7] = inputs.base_pos, inputs.base_rot
            if same:
                st[c, S_GOAL:S_GOAL + 3] = settings[1]
                st[c, S_HAS_POLE] = settings[2] is not None
                if settings[2] is not None:
                    st[c, S_POLE:S_POLE + 3] = settings[2]
            js[s:s + m + 1, J_OFFSET:J_OFFSET + 3] = inputs.offsets
            start = state.start
            if start is not None and limits_same and start.offsets == inputs.offsets:
                self._pack_warm(c, s, m, start)

    def _pack_warm(self, c: int, s: int, m: int, start: LimitedWarm) -> None:
        st, js = self.state, self.slots
        st[c, S_WARM] = 1.0
        st[c, S_WARM_BASE:S_WARM_BASE + 3], st[c, S_WARM_BASE + 3:S_WARM_BASE + 7] = start.base_pos, start.base_rot
        prep = start.prepared
        kinds, params, root_dir, lengths = prep.packed
        js[s:s + m + 1, J_POINT:J_POINT + 3], js[s:s + m, J_FRAME:J_FRAME + 4] = start.points, start.frames
        js[s:s + m, J_DIR:J_DIR + 3], js[s:s + m, J_AXIS:J_AXIS + 3] = prep.ref_dirs, prep.ref_axes
        js[s:s + m, J_KIND], js[s:s + m, J_PARAMS:J_PARAMS + 2], js[s:s + m, J_LENGTH] = kinds, params, lengths
        st[c, S_ROOT_DIR:S_ROOT_DIR + 3] = root_dir

    def unpack(self) -> dict:
        """The ChainStates of the chains solved (rig_chain.ChainState, as RigState.states hands them out)."""
        t = self.tables
        st, js = self.state, self.slots
        out = {}
        for c, name in enumerate(t.names):
            if st[c, S_LAST] == 0.0:
                continue
            s, m = t.slots[c], t.slots[c + 1] - t.slots[c] - 1
            row = st[c].tolist()
            base_pos, base_rot = tuple(row[S_BASE:S_BASE + 3]), tuple(row[S_BASE + 3:S_BASE + 7])
            offsets = list(map(tuple, js[s:s + m + 1, J_OFFSET:J_OFFSET + 3].tolist()))
            solver, tol, cap, clamp, soft = t.settings[c]
            pole = tuple(row[S_POLE:S_POLE + 3]) if row[S_HAS_POLE] else None
            settings = (solver, tuple(row[S_GOAL:S_GOAL + 3]), pole, tol, cap, clamp, soft)
            inputs = make(SolveInputs, (base_pos, base_rot, offsets, settings))
            start = None
            if row[S_WARM]:
                ready = _prepared(js[s:s + m], st[c, S_ROOT_DIR:S_ROOT_DIR + 3], bool(t.ints[c, C_ROOT_LIMITED]))
                warm_base = (tuple(row[S_WARM_BASE:S_WARM_BASE + 3]), tuple(row[S_WARM_BASE + 3:S_WARM_BASE + 7]))
                points, frames = js[s:s + m + 1, J_POINT:J_POINT + 3].copy(), js[s:s + m, J_FRAME:J_FRAME + 4].copy()
                start = make(LimitedWarm, warm_base + (offsets, points, frames, ready))
            ik = list(map(tuple, js[s:s + m, J_IK:J_IK + 4].tolist()))
            out[name] = ChainState(ik, inputs, t.limits[c], row[S_ERROR], bool(row[S_REACHED]), bool(row[S_FINAL]), start)
        return out


def _prepared(rows: np.ndarray, root_dir: np.ndarray, has_root: bool) -> PreparedLimits:
    """A limited warm start's PreparedLimits, from a chain's slots (as packed_limits packs it)."""
    kinds, params, lengths = rows[:, J_KIND].astype(np.int64), rows[:, J_PARAMS:J_PARAMS + 2].copy(), rows[:, J_LENGTH].copy()
    root = tuple(root_dir.tolist()) if has_root else None
    packed = (kinds, params, root_dir.copy(), lengths)
    return PreparedLimits(kinds.tolist(), params.tolist(), rows[:, J_DIR:J_DIR + 3].copy(), rows[:, J_AXIS:J_AXIS + 3].copy(),
                          root, None, lengths.tolist(), packed)


def _plan_codes(plan: LimitPlan) -> tuple:
    """A chain's limit plan per bone as chain_frames.packed_limits codes it: kind (0 none,
    1 cone, 2 hinge, 3 a cone that allows every direction), parameters, hinge axis in the
    parent bone's frame."""
    m = plan.n - 1
    kinds, params, axes = np.zeros(m), np.zeros((m, 2)), np.zeros((m, 3))
    for k, kind in enumerate(plan.kinds):
        if kind is None:
            continue
        kinds[k] = 3 if plan.params[k] is None else 2 if kind == "hinge" else 1
        params[k] = 0.0 if plan.params[k] is None else plan.params[k]
        if plan.local_axes[k] is not None:
            axes[k] = plan.local_axes[k]
    return kinds, params, axes
