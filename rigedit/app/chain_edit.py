"""Edit > Add IK Chain (Shift+I with the viewport focused, as in Blender's pose mode) and
Remove Chain: the rig's chains made and unmade in the editor, each one undo step.

Add IK Chain makes a chain from the selected joints (core/autochains/picked.py: one joint
is a limb's end, its two parents above it; more lie on one line, highest to lowest), with
the solver a new chain of its length gets and its goal where its tip is, so adding it moves
nothing. On a rig with a clip the goal follows the clip, as File > Import's chains do.
Remove Chain removes the chain the Properties dock shows. Both go through
Document.edit_rig: the rig before and after are swapped whole, so undo gives back the very
rig.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from rigedit.core.autochains.picked import pick_chain
from rigedit.core.clip_goals import follow_kwargs

if TYPE_CHECKING:
    from .main_window import MainWindow


class ChainEdit(NamedTuple):
    add_chain: QAction
    remove_chain: QAction


def install_chain_edit(w: "MainWindow") -> ChainEdit:
    m = w.edit_menu
    m.addSeparator()
    add = QAction("Add &IK Chain", w)
    add.setShortcut(QKeySequence("Shift+I"))
    add.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    tip = ("Make an IK chain ending at the selected joint (it and its two parents: click a hand's or a foot's "
           "bone, Shift+I), or through the selected joints along one limb")
    add.setToolTip(tip)
    add.setStatusTip(tip)
    add.triggered.connect(lambda _c=False: add_chain(w))
    w.viewport.container.addAction(add)
    m.addAction(add)
    remove = QAction("Remo&ve Chain", w)
    tip = "Remove the chain the Properties dock shows (its keys go with it; Ctrl+Z brings it back)"
    remove.setToolTip(tip)
    remove.setStatusTip(tip)
    remove.triggered.connect(lambda _c=False: remove_chain(w))
    m.addAction(remove)
    return ChainEdit(add, remove)


def add_chain(w: "MainWindow") -> bool:
    """The chain for the selected joints added, selected and one undo step; False (and the
    status bar says why) when the selection makes none."""
    doc = w.document
    rig = doc.rig
    try:
        p = pick_chain(rig.skeleton, rig.pose, doc.selected_joints, rig.chain_names)
        after = rig.copy()
        after.add_chain(p.name, p.joints, solver=p.solver, pole=p.pole, **follow_kwargs(rig.clip))
    except ValueError as e:
        w.statusBar().showMessage(f"Add IK Chain: {e}", 8000)
        return False
    doc.edit_rig(f"Add chain {p.name}", after, select=p.name)
    w.statusBar().showMessage(f"Added {p.name}: {' → '.join(p.joints)} ({after.chain(p.name).kind.label}); "
                              "drag its target to pose the limb", 8000)
    return True


def remove_chain(w: "MainWindow") -> bool:
    doc = w.document
    name = doc.selected
    if not name:
        w.statusBar().showMessage("Remove Chain: the rig has no chains", 6000)
        return False
    after = doc.rig.copy()
    after.remove_chain(name)
    doc.edit_rig(f"Remove chain {name}", after)
    w.statusBar().showMessage(f"Removed {name} (Ctrl+Z brings it back)", 6000)
    return True
