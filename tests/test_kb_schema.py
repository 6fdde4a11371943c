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
