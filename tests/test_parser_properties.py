"""Property: whatever bytes arrive, no exception escapes and every reported line points at the
original line it came from (hypothesis)."""
import gzip

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vlkb.analyzer import InputError
from vlkb.analyzer.textnorm import clean, split_glued

FRAGMENTS = [
    b"Traceback (most recent call last):", b'  File "/x/train.py", line 12, in main', b"    loss.backward()",
    b"RuntimeError: Expected to mark a variable ready only once. This error", b"AssertionError",
    b"During handling of the above exception, another exception occurred:", b"", b"  0%|   | 0/10 [00:00<?]",
    b"{'loss': nan, 'grad_norm': nan}", b"[E ProcessGroupNCCL.cpp:563] Watchdog caught collective operation timeout",
    b"failed (exitcode: -9) local_rank: 0", b"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    b"Root Cause (first observed failure):", b"  rank      : 1 (local_rank: 1)", b"\x1b[31mred\x1b[0m", b"\xff\xfe\x00",
    b"UserWarning: None of the inputs have requires_grad=True", b"\r 50%|#####", b"CUDA out of memory",
]
PREFIXES = [b"", b"[rank0]:", b"[rank1]: ", b"[default3]:", b"2: ", b"[1,2]<stderr>:", b"node-1: ",
            b"2024-01-01T00:00:00.0000000Z "]

lines = st.lists(st.tuples(st.sampled_from(PREFIXES),
                           st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=40))), max_size=60)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines, gz=st.booleans())
def test_any_bytes_parse_and_lines_point_home(engine, tmp_path_factory, lines, gz):
    raw = [p + f.replace(b"\n", b" ") for p, f in lines]
    data = b"\n".join(raw) + b"\n"
    path = tmp_path_factory.mktemp("p") / ("x.log.gz" if gz else "x.log")
    path.write_bytes(gzip.compress(data) if gz else data)
    try:
        d = engine.diagnose([str(path)])  # nothing but the documented input error may escape
    except InputError as err:
        assert "not a text log" in str(err)
        return
    originals = data.split(b"\n")
    for inc in d.incidents:
        for line in inc.lines:
            assert 1 <= line.lineno <= len(raw)
            noise, text = split_glued(originals[line.lineno - 1].decode("utf-8", "replace"))
            assert line.text in {clean(noise).text, clean(text).text}
