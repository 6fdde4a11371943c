"""The incidents of a diagnosis as a tree: the root first and open, the others folded, cascades marked,
each with its ranks and count; its lines are the leaves. Selecting a node shows its line in the log."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree

from vlkb.analyzer import Diagnosis
from vlkb.analyzer.model import Incident

from .messages import JumpTo

MAX_LINES = 40  # leaves shown per incident


class IncidentsTree(Tree):
    def __init__(self, **kw):
        super().__init__(Text("incidents"), **kw)
        self.show_root = False

    def show(self, d: Diagnosis) -> None:
        self.clear()
        for inc in d.incidents:
            tag = "root" if inc.root else "cascade" if inc.cascade else inc.kind
            label = Text.assemble((f"[{tag}] ", "bold red" if inc.root else "dim"), inc.summary[:200],
                                  (f"  {inc.where}", "dim"))
            node = self.root.add(label, data=(inc.first.path, inc.first.lineno), expand=inc is d.subject)
            self._lines(node, inc)

    def _lines(self, node, inc: Incident) -> None:
        for line in inc.lines[:MAX_LINES]:
            who = f"[{line.who}] " if line.who else ""
            node.add_leaf(Text(f"{line.lineno:>6}  {who}{line.text}"[:300], no_wrap=True),
                          data=(line.path, line.lineno))
        if len(inc.lines) > MAX_LINES:
            node.add_leaf(Text(f"... {len(inc.lines) - MAX_LINES} more lines", style="dim"),
                          data=(inc.lines[MAX_LINES].path, inc.lines[MAX_LINES].lineno))

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        if event.node.data:
            self.post_message(JumpTo(*event.node.data))
