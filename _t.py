import numpy as np, tempfile, os, json
import rigedit
from rigedit.io.bvh import read_bvh
from rigedit.io.preset import bundled_presets, save_preset, load_preset
from rigedit.core.rig import Rig
from rigedit.core.autochains import propose_chains
for p in bundled_presets():
    r = Rig.load(p)
imp = read_bvh("/work/shared/data/cmu_12_01_walk.bvh")
rig = Rig(imp.skeleton, clip=imp.clip, name="walk")
for c in propose_chains(imp.skeleton, imp.clip.frame(0)):
    rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)
rig.time = 1.25; rig.solve()
d = tempfile.mkdtemp()
rig.save(os.path.join(d, "walk.json"))
print(os.listdir(d))
doc = json.load(open(os.path.join(d, "walk.json")))
print(doc["clip_file"], doc["pose"]["time"])
r2 = Rig.load(os.path.join(d, "walk.json"))
print(r2.time, np.abs(r2.world_positions() - rig.world_positions()).max())
print(np.array_equal(r2.clip.rotations, rig.clip.rotations))
