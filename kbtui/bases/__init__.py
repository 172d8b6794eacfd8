"""Obsidian Bases without Obsidian: `.base` files (and ```base blocks) parsed, their formulas and
filters evaluated over the index's rows, their views answered (table, cards, list, map).

Reads through kbtui.store; never imports a front end."""
