import numpy as np, tempfile, os
from rigedit.io.bvh import read_bvh
from rigedit.core.rig import Rig
from rigedit.core.autochains import propose_chains
from rigedit.io.clip_file import remember_source
imp = read_bvh("/work/shared/data/cmu_12_01_walk.bvh"); remember_source(imp)
W = Rig(imp.skeleton, clip=imp.clip, name="walk")
for c in propose_chains(imp.skeleton, imp.clip.frame(0)):
    W.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)
A = W.copy()
A.solve()
t = 0.6*imp.clip.duration
for tt in [t]:
    A.time = tt; A.solve()
W.restore_state(A.solved_state(), solve=False); W.pose = A.pose; W.time = t
d = tempfile.mkdtemp(); W.save(d + "/w.json")
O = Rig.load(d + "/w.json")
diff = np.abs(O.world_positions() - A.world_positions()).max(axis=1)
print(diff.max(), np.nonzero(diff > 1e-6)[0], [W.skeleton.names[i] for i in np.nonzero(diff > 1e-6)[0]][:5])
print(W.chain_names, [ (n, W.chain(n).joints) for n in W.chain_names][:2])
# direct: save A itself
A.save(d + "/a.json"); O2 = Rig.load(d + "/a.json")
print(np.abs(O2.world_positions() - A.world_positions()).max())
