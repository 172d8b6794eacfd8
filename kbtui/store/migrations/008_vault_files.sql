-- Schema 8: every file of the vault (notes, images, PDFs, canvases, .base files ...) with the
-- facts Obsidian Bases calls file.* (kbtui/bases). Rebuilt from the scan on each whole-vault
-- pass and kept current by the watcher; `problem` holds why a .base file cannot be read.
CREATE TABLE IF NOT EXISTS vault_files (
    path     VARCHAR NOT NULL,
    size     BIGINT NOT NULL,
    mtime_ns BIGINT NOT NULL,
    ctime_ns BIGINT NOT NULL,
    problem  VARCHAR
);
