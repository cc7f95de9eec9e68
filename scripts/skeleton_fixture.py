"""Write a skeleton's layout (joint names, parents, rest offsets and rotations) as a small JSON
fixture, for tests that need a file's shape but may not read the file (it is not on the CI
machine, or its licence keeps it out of the repository).

    python scripts/skeleton_fixture.py /tmp/samples/Fox.glb tests/core/skeletons/fox.json
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    src, out = Path(argv[0]), Path(argv[1])
    if src.suffix.lower() == ".bvh":
        from rigedit.io.bvh import read_bvh

        sk = read_bvh(src).skeleton
    else:
        from rigedit.io.gltf import read_gltf

        sk = read_gltf(src).skeleton
    data = {
        "source": src.name,
        "joints": [
            {"name": n, "parent": int(p), "offset": [round(float(v), 6) for v in o],
             "rotation": [round(float(v), 6) for v in q]}
            for n, p, o, q in zip(sk.names, sk.parents, sk.offsets, sk.rest_rotations)
        ],
    }
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{out}: {len(sk)} joints from {src.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
