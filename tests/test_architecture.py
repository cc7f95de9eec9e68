"""The layering in docs/ARCHITECTURE.md: app -> io -> core, and core/io never touch Qt or OpenGL;
no module reaches into a Rig's or a Chain's underscore fields; core files stay short."""
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_core_and_io_import_without_qt():
    code = (
        "import sys, rigedit, rigedit.core, rigedit.io, pkgutil, importlib\n"
        "for pkg in (rigedit.core, rigedit.io):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'OpenGL')]\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the rig's state in one place (docs/ARCHITECTURE.md, "The rig's state") -------------------

PACKAGE = ROOT / "rigedit"
# The classes whose underscore fields no other module may touch, by the file defining them.
# Rig's mixins (rig_posing.Posing, rig_pose_tools.PoseTools) are the class itself: they
# reach its fields through `self`, which this check leaves alone.
OWNERS = {"core/rig.py", "core/chain.py"}
# What a Rig or a Chain is called where one is used: `rig`, `ch`, `chain`, `c`, `src_rig`,
# `self.rig`, `doc.rig`, `rig.chain(name)`, `rig.chains_by_name[name]`, `chains[name]`.
_NAMES = re.compile(r"^(rig|ch|chain|c|[a-z]+_rig|[a-z]+_chain|rig_[a-z]+|chain_[a-z]+)$")


def _is_rig_or_chain(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return bool(_NAMES.match(node.id))
    if isinstance(node, ast.Attribute):  # self.rig, doc.rig, window.document.rig, ...
        return bool(_NAMES.match(node.attr)) and node.attr != "c"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):  # rig.chain(name)
        return node.func.attr == "chain"
    if isinstance(node, ast.Subscript):  # chains[name], rig.chains_by_name[name]
        base = node.value
        return (isinstance(base, ast.Name) and base.id in ("chains", "chains_by_name")) or (
            isinstance(base, ast.Attribute) and base.attr in ("chains", "chains_by_name"))
    return False


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") or name == "__dict__"


def underscore_uses(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every read or write of an underscore field of a Rig or a Chain: an
    attribute (`rig._cache`, `ch._target = ...`), getattr/setattr/hasattr with a literal
    underscore name, or the object's __dict__."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and _is_rig_or_chain(node.value):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2
              and _is_rig_or_chain(node.args[0]) and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):  # fmt: skip
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_finds_what_it_is_for():
    code = (
        "rig._cache.states = {}\nch._target = (0, 0, 0)\nx = self.rig._chains\ny = rig.chain('arm')._kind\n"
        "z = getattr(rig, '_pose')\nw = doc.rig.__dict__\nv = rig.chains_by_name[n]._limits\n"
        "ok = rig.solve_state.states\nok2 = self._cache\nok3 = ch.limit_key\n"
    )
    assert sorted(line for line, _ in underscore_uses(ast.parse(code))) == [1, 2, 3, 4, 5, 6, 7]


def test_no_module_touches_a_rig_or_chain_field():
    """The rig's state is the rig package's, behind methods and read-only properties
    (Rig.solve_state, Rig.plans, Chain.kind, ...): no module outside the class defining a
    field reads or writes it."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in OWNERS:
            continue
        for line, text in underscore_uses(ast.parse(path.read_text(), str(path))):
            found.append(f"rigedit/{rel}:{line}: {text}")
    assert not found, "\n".join(found)


CORE = PACKAGE / "core"
MAX_CORE_LINES = 300
# Files allowed past the limit, each with its reason (keep this short).
LONG_CORE_FILES: dict[str, str] = {}


def test_core_files_hold_one_concept_in_under_300_lines():
    long = {}
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_CORE_LINES and rel not in LONG_CORE_FILES:
            long[rel] = lines
    assert not long, f"core files over {MAX_CORE_LINES} lines: {long}"
