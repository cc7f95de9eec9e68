"""Run tests/js/readers.mjs (three.js's loaders, the Khronos glTF validator) from Python.

The npm packages in tests/js/package.json (pinned) are installed once into a cache directory
outside the repository (RIGEDIT_JS_CACHE, else the user's cache: ~/.cache/rigedit-js/<hash of
package.json>). Without node or npm, or when the install fails (no network), `readers()`
says why, and the tests that need it skip with that message.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).parent / "js"
SCRIPT = HERE / "readers.mjs"
PACKAGE = HERE / "package.json"
INSTALL_TIMEOUT_S = 300  # a slow network; a dead one fails fast


class JsReaders:
    def __init__(self, node: str, modules: Path) -> None:
        self.node = node
        self.modules = modules

    def run(self, *args: str) -> dict:
        env = dict(os.environ, RIGEDIT_JS_MODULES=str(self.modules))
        done = subprocess.run([self.node, str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"readers.mjs {' '.join(map(str, args))} failed:\n{done.stderr[-4000:]}")
        return json.loads(done.stdout)

    def validate(self, path) -> dict:
        return self.run("validate", path)

    def gltf_positions(self, path, animation: str) -> dict:
        return self.run("gltf", path, animation)

    def bvh_positions(self, path) -> dict:
        return self.run("bvh", path)

    def batch(self, jobs: list[dict]) -> list[dict]:
        """Many reads in one node process (starting node and three.js costs more than most
        reads): each job is {"mode": "validate"|"gltf"|"bvh", "file", "animation" (gltf),
        "frames" (optional key indices)}; each result is what that mode gives, or {"error"}."""
        with tempfile.TemporaryDirectory() as folder:
            listing = Path(folder) / "jobs.json"
            listing.write_text(json.dumps([{k: (str(v) if k == "file" else v) for k, v in job.items()} for job in jobs]))
            return self.run("batch", listing)


def _cache_dir() -> Path:
    digest = hashlib.sha256(PACKAGE.read_bytes()).hexdigest()[:12]
    base = os.environ.get("RIGEDIT_JS_CACHE")
    if base:
        return Path(base) / digest
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "rigedit-js" / digest


@lru_cache(maxsize=1)
def readers() -> JsReaders | str:
    """The readers, or a sentence saying why they cannot run here."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "node and npm are not on PATH: the three.js and glTF validator checks need them (node 18 or newer)"
    cache = _cache_dir()
    stamp = cache / ".installed"
    if not stamp.exists():
        cache.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE, cache / "package.json")
        try:
            done = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=cache, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"npm install of tests/js/package.json into {cache} failed: {e}"
        if done.returncode != 0:
            return f"npm install of tests/js/package.json into {cache} failed:\n{done.stderr[-2000:]}"
        stamp.touch()
    return JsReaders(node, cache)


if __name__ == "__main__":  # `make setup`: install now, say what happened, never fail the set-up
    got = readers()
    print(f"three.js readers and glTF validator: {'ready in ' + str(got.modules) if isinstance(got, JsReaders) else got}")
