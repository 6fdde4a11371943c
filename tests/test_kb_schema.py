"""A broken entry is reported with its file, key and what to write (STYLE.md 8)."""
import pytest
import yaml

from vlkb.kb import EntryError, load, load_entry
from vlkb.kb.loader import shipped_dir

GOOD = yaml.safe_load((shipped_dir() / "loss-nan" / "loss-nan.yaml").read_text())


@pytest.mark.parametrize("change,expect", [
    (lambda d: d.pop("fix"), "key 'fix': missing"),
    (lambda d: d.update(id="Loss NaN"), "key 'id': id 'Loss NaN' does not match"),
    (lambda d: d.update(patterns=[{"regex": "loss.*nan"}]), "not anchored with ^"),
    (lambda d: d.update(patterns=[{"regex": "^(unclosed"}]), "does not compile"),
    (lambda d: d.update(sources=[{"url": "not a url"}]), "sources[0].url 'not a url' does not match"),
    (lambda d: d.update(patterns=[{"regex": "^x", "weight": 2}]), "must be at most 1"),
    (lambda d: d.update(colour="red"), "key 'colour': unknown key"),
    (lambda d: d.update(verify={}), "must hold exactly one of: repro, none"),
    # a user's regex that backtracks exponentially would hang every diagnosis (issue 15)
    (lambda d: d.update(patterns=[{"regex": "^(a+)+$"}]), "exponential time"),
    (lambda d: d.update(patterns=[{"regex": r"^(?:\w+\s?)*Error"}]), "exponential time"),
])
def test_bad_entries_name_file_key_and_fix(tmp_path, change, expect):
    doc = dict(GOOD)
    change(doc)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(EntryError) as err:
        load_entry(path)
    assert str(err.value).startswith(str(path)) and expect in str(err.value)


def test_extra_kb_overrides_by_id(tmp_path):
    doc = dict(GOOD, title="Our team's NaN runbook")
    (tmp_path / "loss-nan.yaml").write_text(yaml.safe_dump(doc))
    by_id = {e.id: e for e in load([tmp_path])}
    assert by_id["loss-nan"].title == "Our team's NaN runbook" and len(by_id) == len(load())


def test_schema_file_agrees_with_jsonschema(tmp_path):
    """The schema file is the contract: jsonschema accepts every shipped entry, and rejects what the
    loader rejects for schema reasons."""
    import json
    from importlib import resources

    import jsonschema

    schema = json.loads((resources.files("vlkb.kb") / "schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for entry in load():
        doc = yaml.safe_load(entry.path.read_text())
        assert not list(validator.iter_errors(doc)), entry.path
    for bad in ({**GOOD, "id": "Bad Id"}, {**GOOD, "verify": {}}, {k: v for k, v in GOOD.items() if k != "fix"},
                {**GOOD, "sources": [{"url": "http://insecure"}]}, {**GOOD, "colour": "red"}):
        assert list(validator.iter_errors(bad))
        from vlkb.kb.schema import problems
        assert problems(bad)


def test_a_yaml_bomb_or_a_huge_entry_is_refused_before_it_is_built(tmp_path):
    """Nested aliases (a "billion laughs") and a file far larger than any entry are refused at parse
    time: `kb lint` took 84 s on the bomb and a 200 MB entry was loaded whole."""
    bomb = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    bomb += [f"{chr(97 + i)}: &{chr(97 + i)} [{', '.join(['*' + chr(96 + i)] * 9)}]" for i in range(1, 9)]
    (tmp_path / "bomb.yaml").write_text("\n".join(bomb))
    with pytest.raises(EntryError, match="aliases"):
        load_entry(tmp_path / "bomb.yaml")
    (tmp_path / "huge.yaml").write_text("id: x\nnote: " + "b" * (2 << 20))
    with pytest.raises(EntryError, match="larger than"):
        load_entry(tmp_path / "huge.yaml")
    import tracemalloc

    with open(tmp_path / "huger.yaml", "wb") as f:  # 200 MB (sparse): refused after one page past the limit
        f.write(b"id: x\nnote: ")
        f.truncate(200 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(EntryError, match="huger.yaml: larger than"):
            load_entry(tmp_path / "huger.yaml")
        assert tracemalloc.get_traced_memory()[1] < 16 << 20
    finally:
        tracemalloc.stop()
    good = dict(GOOD, symptom="a * in prose is not an alias")  # an asterisk alone is fine
    (tmp_path / "good.yaml").write_text(yaml.safe_dump(good))
    assert load_entry(tmp_path / "good.yaml").symptom == "a * in prose is not an alias"
