"""Write docs/tools.md from the tool table (run after adding or changing a tool):

    .venv/bin/python docs/make_tools_page.py

tests/test_docs.py fails, naming the tool, until the page matches the code again.
"""

from __future__ import annotations

from pathlib import Path

from kbtui.tools.reference import PAGE, render_page

if __name__ == "__main__":
    path = Path(__file__).resolve().parent.parent / PAGE
    path.write_text(render_page(), encoding="utf-8")
    print(f"wrote {path}")
