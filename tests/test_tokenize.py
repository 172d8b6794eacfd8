from kbtui.tokenize import query_terms, term_id, tokenize


def test_stems_lowercases_and_drops_stop_words() -> None:
    assert tokenize("Who WORKED on the Projects?") == ["work", "project"]


def test_snake_case_ids_split_into_words() -> None:
    assert tokenize("vector_watch_project") == ["vector", "watch", "project"]


def test_accents_fold_so_cafe_matches_cafe() -> None:
    assert tokenize("Café résumé") == tokenize("cafe resume")


def test_cjk_becomes_character_bigrams() -> None:
    assert tokenize("東京のデザイン") == ["東京", "京の", "のデ", "デザ", "ザイ", "イン"]
    assert set(tokenize("東京")) <= set(tokenize("東京のデザイン会議"))


def test_query_terms_are_distinct_hashes() -> None:
    assert query_terms("watch watches watch") == [term_id("watch")]
