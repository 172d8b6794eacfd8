"""The knowledge graph in SQL: entities, relationships resolved the way Obsidian resolves links,
shortest paths, link queries and usage statistics."""
