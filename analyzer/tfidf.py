"""TF-IDF without scikit-learn at run time.

`vlkb kb fit` fits scikit-learn's TfidfVectorizer with the settings below and persists its
vocabulary and idf weights; this module reproduces its transform exactly (a test compares them), and
refits in plain Python when extra KB entries change the corpus. Importing sklearn costs ~0.7 s, more
than diagnosing a typical log.
"""
from __future__ import annotations

import math
from collections import Counter

from . import rx
from .textnorm import canon

# The TfidfVectorizer arguments the persisted weights were made with (see kb/fit.py).
TOKEN_PATTERN = r"(?u)\b\w\w+\b"
SKLEARN_ARGS = dict(token_pattern=TOKEN_PATTERN, lowercase=True, sublinear_tf=True, smooth_idf=True,
                    norm="l2", preprocessor=canon)
_TOKEN = rx.compile(TOKEN_PATTERN)

Vector = dict[str, float]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(canon(text).lower())


def fit_idf(documents: list[str]) -> dict[str, float]:
    """idf(t) = ln((1 + n) / (1 + df(t))) + 1, scikit-learn's smooth_idf formula."""
    n = len(documents)
    df: Counter = Counter()
    for doc in documents:
        df.update(set(tokens(doc)))
    return {t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in sorted(df.items())}


def transform(text: str, idf: dict[str, float]) -> Vector:
    counts = Counter(t for t in tokens(text) if t in idf)
    vec = {t: (1.0 + math.log(c)) * idf[t] for t, c in counts.items()}
    norm = math.sqrt(sum(v * v for v in vec.values()))
    return {t: v / norm for t, v in vec.items()} if norm else {}


def cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())
