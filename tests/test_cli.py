"""The `rigedit` command: check, solve and schema headless; everything else to the editor."""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import rigedit
from rigedit import cli
from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.io.preset import preset_schema

ROOT = Path(__file__).resolve().parents[1]
HUMANOID = BUNDLED_PRESETS / "humanoid.json"


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_passes_the_bundled_presets(capsys):
    paths = sorted(str(p) for p in BUNDLED_PRESETS.glob("*.json"))
    code, out, err = run(["check", *paths], capsys)
    assert code == 0 and err == ""
    assert f"{HUMANOID}: ok (28 joints, 5 chains)" in out.splitlines()
    assert len(out.splitlines()) == len(paths)


def test_check_fails_with_the_message_and_no_traceback(tmp_path, capsys):
    doc = json.loads(HUMANOID.read_text())
    doc["chains"][2]["weight"] = 1.5
    bad = tmp_path / "humanoid.json"
    bad.write_text(json.dumps(doc))
    code, out, err = run(["check", str(HUMANOID), str(bad)], capsys)
    assert code == 1
    assert err == f"{bad}: chains[2].weight: must be between 0 and 1, got 1.5\n"
    assert out == f"{HUMANOID}: ok (28 joints, 5 chains)\n"


def test_check_without_files_is_a_usage_error(capsys):
    code, out, err = run(["check"], capsys)
    assert code == 2 and "usage: rigedit check" in err


def test_solve_prints_a_table_of_joint_positions(capsys):
    code, out, err = run(["solve", str(HUMANOID), "--target", "left_arm=0.3,1.2,0.3"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["joint", "x", "y", "z"]
    rows = {parts[0]: [float(v) for v in parts[1:]] for parts in (l.split() for l in lines[1:29])}
    assert len(rows) == 28
    assert rows["LeftHand"] == pytest.approx([0.3, 1.2, 0.3], abs=1e-4)
    assert rows["Hips"] == pytest.approx([0.0, 0.98, 0.0], abs=1e-4)
    chains = {parts[0]: parts[1:] for parts in (l.split() for l in lines[31:])}
    assert lines[30].split() == ["chain", "reached", "error_m", "iterations"]
    assert chains["left_arm"][0] == "yes" and set(chains) == set(rigedit.Rig.default().chain_names)


def test_solve_json_with_a_pole_and_out_file(tmp_path, capsys):
    out_file = tmp_path / "posed.json"
    code, out, err = run(
        [
            "solve", str(HUMANOID),
            "--target", "left_leg=0.1,0.45,0.3",
            "--pole", "left_leg=0.5,0.5,0.6",
            "--target", "right_arm=-2,1.4,0",
            "--out", str(out_file),
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["joints"]["LeftFoot"] == pytest.approx([0.1, 0.45, 0.3], abs=1e-9)
    assert data["chains"]["left_leg"]["reached"] is True
    assert data["chains"]["right_arm"]["reached"] is False  # two metres out: straight toward it
    saved = rigedit.Rig.load(out_file)
    assert saved.chain("left_leg").target.tolist() == [0.1, 0.45, 0.3]
    assert saved.chain("left_leg").pole.tolist() == [0.5, 0.5, 0.6]
    # The knee swung toward the pole, which is off to the side.
    rig = rigedit.Rig.default()
    rig.chain("left_leg").target = (0.1, 0.45, 0.3)
    rig.solve()
    assert data["joints"]["LeftLeg"][0] > rig.world_position("LeftLeg")[0] + 0.01


def test_solve_can_drop_a_pole(capsys):
    code, out, err = run(["solve", str(HUMANOID), "--pole", "left_leg=none", "--json"], capsys)
    assert code == 0, err


@pytest.mark.parametrize(
    "args,code,message",
    [
        (["--target", "left_hand=0,1,0"], 1, "no chain named 'left_hand' (chains: spine, left_arm, right_arm, left_leg, right_leg)"),
        (["--target", "left_arm=0,1"], 2, "argument --target: expected three numbers X,Y,Z after 'left_arm=', got 2"),
        (["--target", "left_arm=0,up,1"], 2, "argument --target: expected three numbers X,Y,Z after 'left_arm=', got '0,up,1'"),
        (["--target", "0,1,0"], 2, "argument --target: expected CHAIN=X,Y,Z, got '0,1,0'"),
        (["--target", "left_arm=nan,1,0"], 1, "chain 'left_arm': target must be 3 finite numbers, got [nan, 1.0, 0.0]"),
        (["--target", "left_arm=none"], 1, "--target left_arm=none: a target cannot be removed"),
    ],
)
def test_solve_reports_bad_arguments_without_a_traceback(args, code, message, capsys):
    got, out, err = run(["solve", str(HUMANOID), *args], capsys)
    assert got == code
    assert message in err and "Traceback" not in err
    assert out == ""


def test_solve_on_a_broken_file(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "rigedit.preset", "version": 1, "skeleton": ')
    code, out, err = run(["solve", str(bad)], capsys)
    assert code == 1
    assert err == f"{bad}: not valid JSON: the text ends early (truncated?) at line 1, column 55\n"


def test_schema_prints_the_model_schema(capsys):
    code, out, err = run(["schema"], capsys)
    assert code == 0
    assert json.loads(out) == preset_schema()


@pytest.fixture
def fake_editor(monkeypatch):
    """Stand in for rigedit.app.launch so the dispatch can be seen without starting Qt."""
    calls = []
    app = types.ModuleType("rigedit.app")
    launch = types.ModuleType("rigedit.app.launch")
    launch.main = lambda argv: calls.append(list(argv)) or 7
    app.launch = launch
    monkeypatch.setitem(sys.modules, "rigedit.app", app)
    monkeypatch.setitem(sys.modules, "rigedit.app.launch", launch)
    return calls


@pytest.mark.parametrize(
    "argv",
    [[], ["my_rig.json"], ["--screenshot", "out.png"], ["--demo", "out.png", "--size", "800x600"], ["checkout.json"]],
)
def test_anything_else_opens_the_editor(argv, fake_editor):
    assert cli.main(argv) == 7
    assert fake_editor == [argv]


def test_help_lists_the_subcommands(capsys):
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    for name in ("check", "solve", "schema"):
        assert f"  {name} " in out


def test_a_subcommand_is_one_table_entry(monkeypatch, capsys):
    seen = []
    monkeypatch.setitem(cli.COMMANDS, "hello", ("say hello", lambda argv: seen.append(argv) or 0))
    assert cli.main(["hello", "world"]) == 0
    assert seen == [["world"]]
    monkeypatch.setitem(cli.COMMANDS, "later", ("imported when used", cli.lazy("json", "dumps")))
    assert cli.main(["later"]) == "[]"  # json.dumps([]): the module is imported on use


def test_python_dash_m_and_the_console_script(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rigedit", "check", str(HUMANOID)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == f"{HUMANOID}: ok (28 joints, 5 chains)\n"
    script = Path(sys.executable).with_name("rigedit")
    bad = tmp_path / "x.json"
    bad.write_text("[]")
    proc = subprocess.run([str(script), "check", str(bad)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == f"{bad}: not a rigedit preset: expected a JSON object, got a list\n"


def test_headless_commands_do_not_load_qt():
    code = (
        "import sys, io, contextlib\n"
        "from rigedit import cli\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    cli.main(['solve', {str(HUMANOID)!r}, '--target', 'left_arm=0.3,1.2,0.3'])\n"
        "    cli.main(['schema'])\n"
        "print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'OpenGL')])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_importing_the_command_line_loads_no_heavy_library():
    # `rigedit --help` must start fast: the console script imports rigedit.cli (and with it
    # the rigedit package), and each subcommand imports what it needs only when it runs.
    code = (
        "import sys, io, contextlib\n"
        "import rigedit.cli, rigedit.import_cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rigedit.cli.main(['--help'])\n"
        "heavy = ('numpy', 'numba', 'scipy', 'pydantic', 'PySide6', 'pyqtgraph')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_import_rigedit_is_enough_for_rig_load_and_save(tmp_path):
    # The package imports Rig and the preset io on first use; a script that reaches Rig
    # through rigedit.core.rig after `import rigedit` still finds the reader and writer.
    out = tmp_path / "saved.json"
    code = (
        "import sys, rigedit\n"
        "from rigedit.core.rig import Rig\n"
        "rig = Rig.default()\n"
        f"rig.save({str(out)!r})\n"
        f"print(Rig.load({str(out)!r}).chain_names == rig.chain_names, rigedit.Rig is Rig)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True"]
