"""Vectors: writing them into the chunks table, what an open learns of them, and the
disposable HNSW side index built over them."""
