import numpy as np, rigedit
from rigedit.core.ik import ConeLimit, HingeLimit
from rigedit.core import rig_chain
rig = rigedit.Rig.default(); ch = rig.chain("left_arm"); ch.solver = "fabrik"
ch.limits = {"LeftArm": ConeLimit(80.0), "LeftForeArm": HingeLimit((-0.96, -0.28, 0.0), 0.0, 150.0)}
root = rig.world_position(ch.joints[0]); home = np.asarray(ch.target); reach = float(np.linalg.norm(home - root))
a = root + 0.85 * (home - root) + np.array((-0.5, 0.0, -1.0)) * 0.09375 * reach
ch.target = a
for i in range(20):
    r = rig.solve()["left_arm"]
    if i < 4: print("first", i, r.error, r.iterations)
print("first settled", r.reached, r.error)
b = root + np.array((0.0, 1.0, 1.0)) * reach
for s in np.linspace(0, 1, 15)[1:]:
    ch.target = a + s * (b - a); rig.solve()
for s in np.linspace(1, 0, 15)[1:]:
    ch.target = a + s * (b - a); r = rig.solve()["left_arm"]
print("back", r.error, r.iterations)
real = rig_chain._solve
def spy(*args):
    out = real(*args); print("   _solve warm" if args[5] is not None else "   _solve cold", out[1], out[2], out[4]); return out
rig_chain._solve = spy
for i in range(5):
    r = rig.solve()["left_arm"]; print("settle", i, r.error, r.iterations)
