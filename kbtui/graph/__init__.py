"""Knowledge-graph logic that needs no database: rule-based extraction of entities and
relationships from text (`extract`), matching against the vault's known entities, duplicate
detection (`duplicates`)."""
