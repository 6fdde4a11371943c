"""Generated text that loops (analyzer/generation.degenerate): said for a model's output, never for a
log's own repeated lines."""
from conftest import ROOT
from vlkb.analyzer.generation import GENERATED, REPEAT_CHARS, degenerate
from vlkb.analyzer.progress import TAIL_BYTES
from vlkb.kb import fixtures as fx
from vlkb.kb import load

ENTRY = "garbled-generation-output"
HEALTHY = ROOT / "data" / "corpus" / "healthy"


def _said(lines: list[str]) -> str | None:
    text = "\n".join(lines) + "\n"
    found = degenerate(text.encode(), "x.log", len(lines))
    return found[1] if found else None


def test_each_shape_of_a_loop_is_stated_with_what_repeats():
    """The entry's real fixtures: a line (list numbering ignored), a block of the prompt template, special
    tokens alone on each line, words repeated along one line. The statement cites the last repeat."""
    said = {}
    for p in sorted((ROOT / "kb" / "entries" / ENTRY).glob(f"{ENTRY}.pos-*.log")):
        f = fx.parse(p)
        found = degenerate(f.text.encode(), p.name, len(f.text.splitlines()))
        assert found is not None, p.name
        assert found[0].lineno == f.match_line, p.name
        said[p.name.split(".")[1]] = found[1]
    assert said["pos-alpaca-lora-answer-repeats"].startswith(f'{GENERATED} the line "Freddie Highmore"')
    assert said["pos-llama2-accessory-instruction-block-loops"] == f"{GENERATED} a block of 4 lines 7 times running"
    assert said["pos-qwen-chatml-end-tokens-loop"].startswith(f'{GENERATED} the line "<|im_start|><|im_end|>"')
    assert said["pos-vllm-multi-lora-words-repeat"] == f'{GENERATED} "раницa" 18 times running on one line'
    assert said["pos-glm4-finetune-exclamation-marks"] == f'{GENERATED} "!" 128 times running on one line'
    assert said["pos-deepspeed-chat-rlhf-actor-braces"] == f'{GENERATED} "{{:" 10 times running on one line'
    assert said["pos-medicalgpt-baichuan-commas"].startswith(f'{GENERATED} "," ')
    assert said["pos-sglang-mla-repeated-letter"] == f'{GENERATED} "M" 59 times running on one line'


def test_a_logs_own_repeats_are_not_generated_text():
    """A warning every generated sample prints (transformers' generation utils), a rank's repeated
    notice, a progress bar, a table rule and number dumps repeat as often as a loop does: none is said."""
    pad = "Setting `pad_token_id` to `eos_token_id`:2 for open-end generation."
    assert _said([pad] * 12) is None
    assert _said(["[rank3]: Waiting for the other ranks to finish the evaluation loop"] * 12) is None
    llava = ("You are using a model of type llava to instantiate a model of type llava_llama. This is not supported "
             "for all configurations of models and can yield errors.")
    assert _said([llava] * 16) is None
    assert _said([" 45%|████▌     | 450/1000 [10:00<12:00,  1.20s/it]"] * 10) is None
    assert _said(["=" * 80] * 10 + ["-" * 40] * 10) is None
    assert _said(["tensor([nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan], device='cuda:0')"]) is None
    assert _said(["            True, True, True, True, True, True, True, True, True, True, True,"] * 3) is None
    assert _said(["0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f 0x7f"]) is None


def test_one_character_as_a_word_of_its_own_is_generated_text_but_not_inside_a_word_a_number_or_a_rule():
    """A letter or mark REPEAT_CHARS times running as a word of its own, also behind a Ray actor's prefix
    (verl prints its samples so); never the run of a letter inside base64, of digits, of `?` (a console
    that cannot encode the text), of a rule, nor a rank's log line."""
    assert _said(["<think>" + "!" * REPEAT_CHARS]) == f'{GENERATED} "!" {REPEAT_CHARS} times running on one line'
    assert _said(["<think>" + "!" * (REPEAT_CHARS - 1)]) is None
    assert _said(["(main_task pid=9648) <think>" + "!" * 60]) == f'{GENERATED} "!" 60 times running on one line'
    assert _said(["[rank0]: " + "!" * 60]) is None
    assert _said(["好" * 50]) == f'{GENERATED} "好" 50 times running on one line'
    assert _said(["data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA" + "A" * 60 + "BJRU5ErkJggg=="]) is None
    assert _said(["lr 0." + "9" * 50, "saved to C:\\Users\\" + "?" * 50, "#" * 80, "." * 80, "_" * 80]) is None


def test_a_unit_of_punctuation_is_generated_text_unless_it_is_layout():
    """`{: {: {:` (a collapsed policy) is; arrows, empty containers and rules along a line are not."""
    assert _said(["Assistant:  " + "{: " * 12]) == f'{GENERATED} "{{:" 12 times running on one line'
    assert _said(["[" + "{}, " * 12 + "{}]"]) is None
    assert _said(["a " + "-> " * 12 + "b"]) is None
    assert _said(["| " + "--- | " * 12]) is None
    assert _said(["(), " * 12]) is None


def test_fewer_repeats_than_the_threshold_are_not_a_loop():
    line = "The cat is sitting on the sofa."
    assert _said([line] * 9) is None and _said([line] * 10) is not None
    assert _said(["No " * 9]) is None and _said(["No " * 10]) is not None


def test_a_quote_in_the_repeated_line_keeps_the_statement_parseable():
    found = _said(['He said "stop" and went on.'] * 10)
    assert found == f"{GENERATED} the line \"He said 'stop' and went on.\" 10 times running"


def test_no_other_fixture_and_no_healthy_log_reads_as_looping_output():
    """Every fixture of every other entry (positives and near misses) and the healthy corpus."""
    texts = {p.name: fx.parse(p).text.encode() for e in load() if e.id != ENTRY for p in e.fixtures}
    texts |= {p.name: p.read_bytes() for p in sorted(HEALTHY.glob("*.log"))}
    assert len(texts) > 1500
    assert not [name for name, text in texts.items() if degenerate(text[-TAIL_BYTES:], name, 1)]
