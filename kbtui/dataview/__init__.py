"""Dataview's query language (DQL) answered from kbtui's index: kbtui.dataview.service."""
