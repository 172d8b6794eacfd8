"""Attachments Obsidian shows (images, audio, video: its accepted file formats) are entities
found by their file name; their notes that embed them (`![[photo.png]]`) are neighbours.
Their bytes are never read: a video may be gigabytes, and a name is all there is to index."""

from __future__ import annotations

KINDS = {
    **dict.fromkeys((".avif", ".bmp", ".gif", ".jpeg", ".jpg", ".png", ".svg", ".webp"), "image"),
    **dict.fromkeys((".flac", ".m4a", ".mp3", ".ogg", ".wav", ".3gp"), "audio"),
    **dict.fromkeys((".mkv", ".mov", ".mp4", ".ogv", ".webm"), "video"),
}
SUFFIXES = tuple(KINDS)


def attachment_kind(path: str) -> str:
    """ "image", "audio" or "video"; "" for any other file."""
    dot = path.rfind(".")
    return KINDS.get(path[dot:].lower(), "") if dot >= 0 else ""
