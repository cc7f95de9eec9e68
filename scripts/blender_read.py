"""Blender's own importers read rigedit's exports: run by scripts/blender_readers.py with a
Python that has the `bpy` wheel (no rigedit there), never by the test suite (the wheel is
hundreds of MB).

    BPY_PYTHON scripts/blender_read.py JOBS.json OUT.json

JOBS: a list of {"kind": "bvh"|"gltf", "file", "animation" (gltf), "frames" (key indices),
"times" (their seconds, gltf), "names" (as written in the file)}. OUT: per job, {"positions":
[[x, y, z] per name] per frame, in Blender's world frame (Z up), or null for a name Blender
made nothing of}, or {"error"}.
"""
from __future__ import annotations

import json
import sys
import traceback

import bpy


def _import(job: dict) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if job["kind"] == "bvh":
        bpy.ops.import_anim.bvh(filepath=job["file"])  # defaults: Y up in the file, frame 1 = the file's first
    else:
        bpy.ops.import_scene.gltf(filepath=job["file"])
        _play(job["animation"])


def _play(animation: str) -> None:
    """Put the animation named `animation` on every object it drives (the importer leaves the
    first one active), each object on its own slot of the action."""
    action = next((a for a in bpy.data.actions if a.name == animation or a.name.startswith(animation)), None)
    if action is None:
        raise ValueError(f"no action {animation!r}; Blender made {[a.name for a in bpy.data.actions]}")
    for obj in bpy.data.objects:
        slots = [s for s in getattr(action, "slots", []) if s.name_display == obj.name]
        if obj.animation_data is None and not slots:
            continue
        data = obj.animation_data or obj.animation_data_create()
        data.action = action
        if slots:
            data.action_slot = slots[0]


def _frame(job: dict, k: int) -> float:
    if job["kind"] == "bvh":
        return 1.0 + job["frames"][k]
    scene = bpy.context.scene
    return job["times"][k] * scene.render.fps / scene.render.fps_base


def _where(name: str):
    """A function giving the world position of what Blender made of joint `name`, or None."""
    for obj in bpy.data.objects:
        if obj.type == "ARMATURE" and name in obj.pose.bones:
            bone = obj.pose.bones[name]
            return lambda o=obj, b=bone: list(o.matrix_world @ b.head)
    obj = bpy.data.objects.get(name)
    return None if obj is None else (lambda o=obj: list(o.matrix_world.translation))


def read(job: dict) -> dict:
    _import(job)
    where = [_where(n) for n in job["names"]]
    scene, out = bpy.context.scene, []
    for k in range(len(job["frames"])):
        at = _frame(job, k)
        scene.frame_set(int(at), subframe=at - int(at))
        bpy.context.view_layer.update()
        out.append([None if w is None else w() for w in where])
    return {"positions": out}


def main(jobs_path: str, out_path: str) -> None:
    results = []
    for job in json.load(open(jobs_path)):
        try:
            results.append(read(job))
        except Exception:  # one file's failure is that file's row, not the run's end
            results.append({"error": traceback.format_exc(limit=3)})
    json.dump(results, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[-2:])
