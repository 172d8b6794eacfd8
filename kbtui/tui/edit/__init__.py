"""The in-app editor with link completion, the conflict view and review mode (issue 40,
items 3 and 6): screens of their own, reached from the note view (`i`), the palette and f3."""
