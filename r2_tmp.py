import numpy as np, rigedit
from rigedit.core.ik import ConeLimit, HingeLimit
rig = rigedit.Rig.default(); ch = rig.chain("left_arm"); ch.solver = "fabrik"
ch.limits = {"LeftArm": ConeLimit(80.0), "LeftForeArm": HingeLimit((-0.96, -0.28, 0.0), 0.0, 150.0)}
root = rig.world_position(ch.joints[0]); home = np.asarray(ch.target); reach = float(np.linalg.norm(home - root))
a = root + 0.85 * (home - root) + np.array((-0.5, 0.0, -1.0)) * 0.09375 * reach
ch.target = a
r = rig.solve()["left_arm"]; print(r.errors, ch.reach_clamp, np.linalg.norm(a-root), reach)
