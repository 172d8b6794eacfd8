"""Writing the vault: new notes, several notes as one, a frontmatter field, link text.

Every edit keeps the bytes it does not change; the reading modules (kbtui.vault) never write."""
