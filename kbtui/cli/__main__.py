"""`python -m kbtui.cli`: the same entry point as the `kbtui` command."""

from kbtui.cli import main

main(prog_name="kbtui")
