"""The graph map's drawing surface: graphmap's character canvas fitted to the widget.

The frame is drawn from the laid-out neighbourhood at the widget's current size, so a resize
redraws it; the last frame is kept for the keys (nearest node in a direction) and the mouse
(which node's label was clicked).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from kbtui.graphmap.canvas import Frame, draw, nearest
from kbtui.graphmap.model import Layout

Direction = str  # "left" | "right" | "up" | "down"


class MapCanvas(Widget, can_focus=True):
    """One laid-out neighbourhood, drawn with the selected node highlighted."""

    class Selected(Message):
        """The selection moved (keys, a click, a find): the pane says what is selected."""

        def __init__(self, canvas: MapCanvas, node_id: str | None) -> None:
            super().__init__()
            self.canvas = canvas
            self.node_id = node_id

    def __init__(self, placeholder: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.map_layout: Layout | None = None
        self.selected: str | None = None
        self.edge_labels = False
        self.placeholder = Text(placeholder, style="dim")
        self._frame: Frame | None = None
        self._frame_key: tuple[object, ...] | None = None

    def show(self, map_layout: Layout | None, selected: str | None) -> None:
        """A new layout (or none: the placeholder), keeping `selected` when it is drawn."""
        self.map_layout = map_layout
        ids = {n.id for n in map_layout.hood.nodes} if map_layout else set()
        if selected not in ids:
            selected = map_layout.hood.centre if map_layout else None
        if selected not in ids:
            selected = map_layout.hood.nodes[0].id if map_layout and ids else None
        self.select(selected)
        self.refresh()

    def say(self, message: str | Text) -> None:
        """Nothing to draw: a line instead (loading, an error, an empty neighbourhood)."""
        self.map_layout = None
        self.placeholder = message if isinstance(message, Text) else Text(message, style="dim")
        self.select(None)
        self.refresh()

    def select(self, node_id: str | None) -> None:
        if node_id != self.selected:
            self.selected = node_id
            self.refresh()
        self.post_message(self.Selected(self, node_id))

    def toggle_edge_labels(self) -> None:
        self.edge_labels = not self.edge_labels
        self.refresh()

    def frame(self) -> Frame | None:
        """The frame for the current size and state, drawn only when one of them changed."""
        if self.map_layout is None:
            return None
        width, height = self.content_size
        key = (id(self.map_layout), width, height, self.selected, self.edge_labels)
        if key != self._frame_key or self._frame is None:
            self._frame = draw(
                self.map_layout,
                max(width, 1),
                max(height, 1),
                selected=self.selected,
                edge_labels=self.edge_labels,
            )
            self._frame_key = key
        return self._frame

    def render(self) -> Text:
        frame = self.frame()
        if frame is None:
            return self.placeholder
        return Text("\n").join(frame.lines)

    def move(self, direction: Direction) -> None:
        """The nearest node that way, if there is one."""
        frame = self.frame()
        if frame is None or self.selected is None:
            return
        found = nearest(frame, self.selected, direction)  # type: ignore[arg-type]
        if found is not None:
            self.select(found)

    def node_at(self, col: int, row: int) -> str | None:
        """The node whose label covers this cell (the frame's boxes), else None."""
        frame = self.frame()
        if frame is None:
            return None
        for node_id, (left, top, length) in frame.boxes.items():
            if top == row and left <= col < left + length:
                return node_id
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        node_id = self.node_at(offset.x, offset.y)
        if node_id is not None:
            self.select(node_id)
