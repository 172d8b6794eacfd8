"""Modal screens: merge and rename confirmation, help, index report, a one-line prompt, and
the screen shown when the vault cannot be opened at all."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Static

from kbtui.cells import cell_safe


class ConfirmMerge(ModalScreen[str | None]):
    """Asks which of two entities to keep. Dismisses with the kept id, or None: nothing
    is written unless the user picks one. Cancel has the focus, so Enter is safe."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "dismiss(None)", "Cancel", id="merge.cancel"),
        Binding("1", "keep(0)", "Keep first", id="merge.keep_first"),
        Binding("2", "keep(1)", "Keep second", id="merge.keep_second"),
    ]

    def __init__(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        super().__init__()
        self.pair = (first, second)

    def compose(self) -> ComposeResult:
        first, second = self.pair
        with Vertical(id="dialog"):
            yield Static(Text("Merge these entities?", style="bold"), id="dialog-title")
            table = Table.grid(padding=(0, 2))
            for n, entity in enumerate(self.pair, 1):
                table.add_row(
                    Text(f"{n}.", style="bold"),
                    Text(cell_safe(f"{entity['name']} ({entity['type']})"), style="bold"),
                    Text(str(entity.get("source") or entity["id"]), style="dim"),
                )
            yield Static(table)
            yield Static(
                "The entity you keep takes the other's aliases and relationships. The other "
                "note goes to the vault's trash (and kbtui's history); links to it keep "
                "resolving.",
                id="dialog-body",
            )
            with Horizontal(id="dialog-buttons"):
                yield Button(f"Keep {first['name']}", id="keep-0", variant="primary")
                yield Button(f"Keep {second['name']}", id="keep-1", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def action_keep(self, index: int) -> None:
        self.dismiss(str(self.pair[index]["id"]))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        elif event.button.id in ("keep-0", "keep-1"):
            self.action_keep(int(event.button.id[-1]))


class ConfirmRename(ModalScreen[bool]):
    """A rename's dry run: the move and every changed line; Cancel has the focus, so only
    a deliberate choice writes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "dismiss(False)", "Cancel", id="rename.cancel"),
        Binding("y", "dismiss(True)", "Rename", id="rename.confirm"),
    ]

    def __init__(self, dry_run: dict[str, Any]) -> None:
        super().__init__()
        self.dry_run = dry_run

    def compose(self) -> ComposeResult:
        plan = self.dry_run
        lines = Text()
        if plan.get("refusal"):
            lines.append(f"{plan['refusal']}\n\n", style="bold red")
        if plan.get("retargeted"):
            lines.append(
                f"{plan['retargetedCount']} link(s) would reach another note:\n",
                style="bold yellow",
            )
            for link in plan["retargeted"]:
                lines.append(f"{link['path']}:{link['line']}: {link['text']}\n", style="yellow")
                lines.append(f"  {link['from']} → {link['to']}\n", style="yellow")
            lines.append("\n")
        for change in plan["filesChanged"]:
            lines.append(f"{change['path']}: {change['linksRewritten']} link(s)\n", style="bold")
            for line in change.get("lines", []):
                lines.append(f"  - {line['before'].strip()}\n", style="red")
                lines.append(f"  + {line['after'].strip()}\n", style="green")
        with Vertical(id="dialog"):
            anyway = " anyway" if plan.get("refusal") else ""
            title = f"Rename{anyway} {plan['oldPath']} → {plan['newPath']}?"
            yield Static(Text(title, style="bold"), id="dialog-title")
            yield Static(Text(str(plan["message"]), style="dim"))
            with VerticalScroll(id="rename-changes"):
                yield Static(lines)
            with Horizontal(id="dialog-buttons"):
                label = "Rename anyway (y)" if plan.get("refusal") else "Rename (y)"
                yield Button(label, id="rename", variant="warning")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "rename")


class HelpScreen(ModalScreen[None]):
    """Every key of every screen, from the bindings themselves so it cannot go stale (a
    binding's tooltip, when it has one, says more than the footer's word)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q,question_mark", "dismiss(None)", "Close", id="help.close")
    ]

    def __init__(self, sections: Iterable[tuple[str, Iterable[BindingType]]]) -> None:
        super().__init__()
        self.sections = [(title, list(bindings)) for title, bindings in sections]

    def compose(self) -> ComposeResult:
        parts: list[Any] = [Text("kbtui keys", style="bold"), Text()]
        for title, bindings in self.sections:
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold yellow", no_wrap=True, min_width=18)
            table.add_column()
            for binding in bindings:
                if isinstance(binding, Binding) and binding.description:
                    keys = ", ".join(
                        self.app.get_key_display(Binding(k, "")) for k in binding.key.split(",")
                    )
                    table.add_row(Text(keys), Text(binding.tooltip or binding.description))
            parts += [Text(title, style="bold underline"), table, Text()]
        parts.append(
            Text("ctrl+p: the command palette; ctrl+q quits. Escape closes this.", style="dim")
        )
        with VerticalScroll(id="dialog"):
            yield Static(Group(*parts))


class ReportModal(ModalScreen[None]):
    """What an indexing pass did, and every note it could not read with the reason."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "dismiss(None)", "Close", id="report.close")
    ]

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        r = self.report
        parts: list[Any] = [Text("Index report", style="bold")]
        counts = ", ".join(f"{len(r[k])} {k}" for k in ("new", "changed", "deleted", "renamed"))
        parts.append(Text(f"{counts}, {r['unchanged']} unchanged"))
        for key, title, style in (
            ("skipped", "Notes that could not be indexed", "bold red"),
            ("warnings", "Warnings", "yellow"),
        ):
            if r.get(key):
                table = Table.grid(padding=(0, 2))
                table.add_column(style=style, no_wrap=True)
                table.add_column(overflow="fold")
                for item in r[key]:
                    table.add_row(Text(item["path"]), Text(item["reason"]))
                parts += [Text(), Text(f"{title} ({len(r[key])})", style="bold"), table]
        if not r.get("skipped"):
            parts += [Text(), Text("Every note was indexed.", style="green")]
        parts += [Text(), Text("Escape closes this.", style="dim")]
        with VerticalScroll(id="dialog"):
            yield Static(Group(*parts))


class PromptModal(ModalScreen[str | None]):
    """One line of input (e.g. a vault folder); Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="prompt.cancel")
    ]

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text, self.placeholder, self.value = title, placeholder, value

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text, style="bold"))
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)


class ErrorScreen(Screen[None]):
    """The vault could not be opened (held by another process, missing, unreadable). Says
    why and what to do instead of a traceback; the palette can still switch vaults."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q,q", "app.quit", "Quit", id="error.quit")
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(Text("kbtui cannot open this vault", style="bold red"))
            yield Static(Text(self.message))
            yield Static(
                Text(
                    "Other kbtui processes (an assistant's `kbtui mcp`, a CLI command) share "
                    "a vault; a DuckDB shell or an older kbtui does not: close it and start "
                    "kbtui again. ctrl+p → “Switch vault” opens another vault; q quits.",
                    style="dim",
                )
            )
        yield Footer()
