"""New note (ctrl+n, the palette): a title, a folder (Obsidian's new-note folder first; the
vault's folders picked by fuzzy match) and a template of the Templates plugin ({{title}},
{{date}} and {{time}} filled by note_write). note_write refuses a name another note answers
to, and its message stays in the dialog; the new note then opens in the editor
(`open_created`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.messages import OpenNote
from kbtui.tui.writing.fuzzy import rank

if TYPE_CHECKING:
    from kbtui.tui.app import KbApp

FOLDERS_SHOWN = 6
ROOT = "/"  # the folder list's name for the vault's root
NEW = "new:"  # the option id of a folder typed that does not exist yet


def open_created(app: KbApp, path: str) -> None:
    """Where a note created in the TUI opens: the in-app editor (kbtui.tui.edit.editor),
    and once it is left, the note view."""
    app.notify(f"Created {path}")
    app.poll_status()
    answer = app.tool("app_note_ids", {"paths": [path]})
    entity_id = (answer.get("ids") or {}).get(path)
    app.open_editor(path, (lambda: app.post_message(OpenNote(entity_id))) if entity_id else None)


def note_path(title: str, folder: str) -> str:
    """What note_write is asked for: `folder/title`, `/title` at the root (not the default
    folder again)."""
    folder = folder.strip().strip("/")
    return f"{folder}/{title}" if folder else f"/{title}"


class NewNoteModal(ModalScreen[str | None]):
    """Dismissed with the new note's vault path, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="new.cancel"),
        Binding("ctrl+s", "create", "Create", id="new.create"),
        Binding("down", "down", "Next field", show=False, id="new.down"),
    ]

    def __init__(self, current: str | None = None) -> None:
        super().__init__()
        self.current = current  # the note open now: Obsidian's "same folder as current file"
        self.folders: list[str] = []
        self.templates: list[str] = []
        self.template_folder = ""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="new-note"):
            yield Static(Text("New note", style="bold"), id="dialog-title")
            yield Label("Title")
            yield Input(placeholder="the note's name", id="new-title")
            yield Label("Folder (↓ picks one; empty: the vault's root)")
            yield Input(placeholder="/", id="new-folder")
            yield OptionList(id="new-folders")
            yield Label("Template", id="new-template-label")
            yield OptionList(id="new-templates")
            yield Static(id="new-error")
            with Horizontal(id="dialog-buttons"):
                yield Button("Create (enter)", id="create", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#new-title", Input).focus()
        self.load()

    @work(thread=True, exclusive=True, group="new-note")
    def load(self) -> None:
        args = {"current": self.current} if self.current else {}
        answer = self.kb.tool("app_new_note", args)
        self.app.call_from_thread(self._loaded, answer)

    @property
    def kb(self) -> KbApp:
        return self.app  # type: ignore[return-value]

    def _loaded(self, answer: dict[str, Any]) -> None:
        if not answer.get("ok"):
            self._error(str(answer.get("message")))
            return
        self.folders = [ROOT, *answer["folders"]]
        self.templates = list(answer["templates"])
        self.template_folder = str(answer["template_folder"] or "")
        folder = self.query_one("#new-folder", Input)
        folder.value = str(answer["folder"] or "")
        self._show_folders(folder.value)
        label = self.query_one("#new-template-label", Label)
        templates = self.query_one("#new-templates", OptionList)
        options = [Option(Text("No template", style="dim"), id="")]
        options += [Option(cell_safe(name), id=f"t:{name}") for name in self.templates]
        templates.set_options(options)
        templates.highlighted = 0
        if self.template_folder:
            label.update(f"Template (from {self.template_folder}/)")
        else:
            label.update("Template (none: the Templates plugin has no folder set)")

    # -- the folder picker -----------------------------------------------------------------
    @on(Input.Changed, "#new-folder")
    def _folder_typed(self, event: Input.Changed) -> None:
        self._show_folders(event.value)
        self._error("")

    def _show_folders(self, typed: str) -> None:
        wanted = typed.strip().strip("/")
        if self.known(wanted):  # the folder given: first, the others after it
            first = self.folders.index(wanted) if wanted else 0
            rest = [i for i in range(len(self.folders)) if i != first]
            found = [first, *rest][:FOLDERS_SHOWN]
        else:
            found = rank(wanted, self.folders, FOLDERS_SHOWN)
        options = [Option(cell_safe(self.folders[i]), id=self.folders[i]) for i in found]
        if wanted and not self.known(wanted):
            new = Text.assemble(cell_safe(wanted), (" (a new folder)", "dim"))
            options.append(Option(new, id=NEW + wanted))
        listing = self.query_one("#new-folders", OptionList)
        listing.set_options(options)
        listing.highlighted = 0 if options else None

    def known(self, folder: str) -> bool:
        """An existing folder (or the root) of the vault."""
        folder = folder.strip().strip("/")
        return not folder or folder in self.folders

    @on(OptionList.OptionSelected, "#new-folders")
    def _folder_picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.pick_folder(str(event.option.id))
        self.query_one("#new-templates", OptionList).focus()

    def pick_folder(self, option_id: str) -> None:
        chosen = "" if option_id == ROOT else option_id.removeprefix(NEW)
        folder = self.query_one("#new-folder", Input)
        with folder.prevent(Input.Changed):
            folder.value = chosen

    def action_down(self) -> None:
        """↓ from the title to the folder, from the folder to its matches."""
        focused = self.focused
        if focused is not None and focused.id == "new-title":
            self.query_one("#new-folder", Input).focus()
        elif focused is not None and focused.id == "new-folder":
            self.query_one("#new-folders", OptionList).focus()

    # -- creating --------------------------------------------------------------------------
    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter creates; in the folder field, a folder typed in part takes the highlighted
        match first (a new folder is made only when its own line is chosen)."""
        event.stop()
        if event.input.id == "new-folder" and not self.known(event.value):
            option = self.query_one("#new-folders", OptionList).highlighted_option
            if option is not None and option.id is not None:
                self.pick_folder(option.id)
                if not option.id.startswith(NEW):
                    self._show_folders(self.query_one("#new-folder", Input).value)
                    self.query_one("#new-templates", OptionList).focus()
                    return
        self.action_create()

    @on(OptionList.OptionSelected, "#new-templates")
    def _template_picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_create()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            self.action_create()
        else:
            self.dismiss(None)

    def chosen_template(self) -> str | None:
        option = self.query_one("#new-templates", OptionList).highlighted_option
        return option.id[2:] if option is not None and option.id else None

    def action_create(self) -> None:
        title = self.query_one("#new-title", Input).value.strip()
        if not title:
            self._error("Give the note a title.")
            self.query_one("#new-title", Input).focus()
            return
        folder = self.query_one("#new-folder", Input).value
        self.create(note_path(title, folder), self.chosen_template())

    @work(thread=True, exclusive=True, group="new-note-create")
    def create(self, path: str, template: str | None) -> None:
        args: dict[str, Any] = {"path": path}
        if template:
            args["template"] = template
        answer = self.kb.tool("note_write", args)
        self.app.call_from_thread(self._created, answer)

    def _created(self, answer: dict[str, Any]) -> None:
        if answer.get("ok"):
            self.dismiss(str(answer["path"]))
        else:
            self._error(str(answer.get("message")))

    def _error(self, message: str) -> None:
        self.query_one("#new-error", Static).update(Text(message, style="bold red"))
