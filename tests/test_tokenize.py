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


def test_accented_latin_folds_and_stems_like_its_plain_spelling() -> None:
    assert tokenize("Über die Straße, naïve Zoë") == tokenize("uber die strasse, naive zoe")
    assert tokenize("São Paulo año niño") == ["sao", "paulo", "ano", "nino"]
    assert tokenize("Équipes éditées") == tokenize("equipes editees")
    # Letters NFKD cannot decompose stay as they are, on both sides alike.
    assert tokenize("Łódź") == ["łodz"]


def test_cjk_inside_latin_text_and_queries_match_by_bigrams() -> None:
    assert tokenize("Rust编程语言") == ["rust", "编程", "程语", "语言"]
    note = set(tokenize("我们在北京讨论了手表的电池续航问题"))
    assert set(tokenize("电池续航")) <= note
    assert not set(tokenize("上海")) & note
    assert tokenize("東") == ["東"]  # a one-character run is kept as a unigram


def test_korean_words_match_whatever_particle_they_carry() -> None:
    """A Korean word carries its particle (이미지는 "the image", 이미지를 "the image" as an
    object): whole words never matched across them; their bigrams share the stem's."""
    assert tokenize("배터리 수명") == ["배터", "터리", "수명"]
    assert set(tokenize("이미지는")) & set(tokenize("이미지를")) == {"이미", "미지"}


def test_title_weight_and_cache_do_not_change_results() -> None:
    text = "Running runners ran; the café's résumé"
    assert tokenize(text) == tokenize(text) == ["run", "runner", "ran", "cafe", "resum"]
