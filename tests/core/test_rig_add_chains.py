"""Adding chains: each chain is linked to the earlier chains it reads (its upstream) without
a pass over all of them, so adding n chains is linear in n. Checked by counting the work
(joints looked up), never by timing; and the links checked against a brute-force reference."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit  # noqa: F401  (registers the preset io)
from rigedit.core import rig_plan
from rigedit.core.ik.frame_codes import I_SIZE, I_SOLE
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.core.rig_chains import RigChains
from rigedit.core.skeleton import Skeleton


def flat_rig(limbs: int) -> Rig:
    """A root with `limbs` three-joint limbs, no chains yet."""
    joints = [("root", None, (0.0, 1.0, 0.0))]
    for i in range(limbs):
        joints += [(f"a{i}", "root", (0.01 * i, 0, 0)), (f"b{i}", f"a{i}", (0, -0.3, 0.01)), (f"c{i}", f"b{i}", (0, -0.3, -0.01))]
    return Rig(Skeleton.from_joints(joints))


def work(limbs: int, monkeypatch) -> tuple[int, int]:
    """(joints looked up, full re-links) while a spine-like chain and `limbs` limbs are added."""
    counted = {"lookups": 0, "relinks": 0}
    real_upstream, real_relink = rig_plan.Writers.upstream_of, RigChains.relink

    def upstream_of(self, reads):
        counted["lookups"] += len(reads)
        return real_upstream(self, reads)

    def relink(self):
        counted["relinks"] += 1
        return real_relink(self)

    monkeypatch.setattr(rig_plan.Writers, "upstream_of", upstream_of)
    monkeypatch.setattr(RigChains, "relink", relink)
    rig = flat_rig(limbs)
    for i in range(limbs):
        rig.add_chain(f"l{i}", [f"a{i}", f"b{i}", f"c{i}"], solver="two_bone")
    monkeypatch.undo()
    return counted["lookups"], counted["relinks"]


def test_adding_chains_does_work_linear_in_the_chains(monkeypatch):
    # Each limb reads its two upper joints and the root: the same work for the 800th limb as
    # for the first, and no pass over all the chains (a re-link) on any add.
    small, large = work(100, monkeypatch), work(800, monkeypatch)
    assert small == (100 * 3, 0) and large == (800 * 3, 0)


def reference_upstream(rig: Rig) -> dict[str, tuple[str, ...]]:
    """The definition, brute force: earlier chains that turn a joint this one reads (its own
    joints but the tip, and every joint above its root)."""
    sk = rig.skeleton
    out, written = {}, []
    for name in rig.chain_names:
        idx = sk.chain_indices(rig.chain(name).joints)
        reads = set(idx[:-1])
        j = int(sk.parents[idx[0]])
        while j >= 0:
            reads.add(j)
            j = int(sk.parents[j])
        out[name] = tuple(other for other, joints in written if joints & reads)
        written.append((name, set(idx)))
    return out


def chains_of(rig: Rig) -> dict[str, tuple[str, ...]]:
    return {name: rig.plans[name].upstream for name in rig.chain_names}


# A random tree (each joint's parent is an earlier joint) and random chains down it.
trees = st.lists(st.integers(0, 10_000), min_size=2, max_size=25).map(lambda r: [-1] + [v % (i + 1) for i, v in enumerate(r[1:])])


@settings(max_examples=60, deadline=None)
@given(trees, st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 4)), min_size=1, max_size=12), st.data())
def test_upstream_matches_the_definition_through_adds_removes_and_copies(parents, picks, data):
    names = [f"j{i}" for i in range(len(parents))]
    sk = Skeleton(names, parents, [(0.0, 0.1, 0.0)] * len(parents), [(0.0, 0.0, 0.0, 1.0)] * len(parents))
    rig = Rig(sk)
    for k, (start, length) in enumerate(picks):
        j = start % len(parents)
        chain = [j]
        while len(chain) < length + 1:
            kids = [c for c, p in enumerate(parents) if p == chain[-1]]
            if not kids:
                break
            chain.append(kids[data.draw(st.integers(0, len(kids) - 1))])
        if len(chain) >= 2:
            rig.add_chain(f"c{k}", [names[i] for i in chain], solver="fabrik")
        if rig.chain_names and data.draw(st.booleans()):
            if data.draw(st.booleans()):
                rig.remove_chain(data.draw(st.sampled_from(rig.chain_names)))
            else:
                rig = rig.copy()  # the copy links its own new chains
        assert chains_of(rig) == reference_upstream(rig)


def board_rows(rig: Rig) -> list[list[float]]:
    """What the compiled frame reads of each chain (Rig.frame_board), in solve order."""
    return np.frombuffer(bytes(rig.frame_board.rows)).reshape(-1, I_SIZE).tolist()


def own_rows(rig: Rig) -> list[list[float]]:
    """The same rows as the chains' own settings give them."""
    rows = []
    for c in rig.chains_by_name.values():
        pole = c.own_pole
        rows.append(list(c.own_target) + ([0.0] * 4 if pole is None else list(pole) + [1.0]) + [c.weight]
                    + [0.0] * (I_SIZE - I_SOLE))  # a chain's own row has no sole: the frame's feet do
    return rows


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["humanoid.json", "creature.json"]))
def test_a_chain_belongs_to_one_rig_at_a_time(seed, preset):
    """A chain's setters keep one rig's frame board: a chain another rig holds is refused
    (nothing added), a copy or a chain removed from its rig is taken, and each rig's board
    follows its own chains' edits after all of it."""
    rng = np.random.default_rng(seed)
    rig = Rig.load(BUNDLED_PRESETS / preset)
    names = rig.chain_names
    ch = rig.chain(names[int(rng.integers(len(names)))])
    with pytest.raises(ValueError, match=f"chain {ch.name!r} already belongs to another rig"):
        Rig(rig.skeleton, [ch])
    assert ch.in_rig and rig.chain(ch.name) is ch

    twin = Rig(rig.skeleton, [ch.copy()])  # a copy is a chain of its own
    ch.target = np.asarray(ch.target) + rng.uniform(-0.05, 0.05, 3)
    ch.weight = float(rng.uniform(0.1, 1.0))
    rig.solve()
    twin.solve()
    assert board_rows(rig) == own_rows(rig)
    assert board_rows(twin) == own_rows(twin) and twin.chain(ch.name).own_target != ch.own_target

    rig.remove_chain(ch.name)  # out of its rig, the chain may join another
    assert not ch.in_rig
    moved = Rig(rig.skeleton, [ch])
    ch.target = np.asarray(ch.target) + rng.uniform(-0.05, 0.05, 3)
    moved.solve()
    assert board_rows(moved) == own_rows(moved) and moved.chain(ch.name) is ch
    with pytest.raises(ValueError, match="already belongs to another rig"):
        Rig(rig.skeleton, [ch])
