"""``tf.contrib.learn.preprocessing``: TF1's ``VocabularyProcessor``, words to id rows.

Text programs of the TF1 era (the cookbook's bag of words and spam RNN, CNN text
classifiers) turn sentences into fixed-length rows of word ids in Python before
feeding them, with this class; it runs no graph op, so it is plain Python here, with
TF 1.x's rules:

- words are what ``TOKENIZER_RE`` finds (runs of word characters, ' and -, with
  capitalised words and acronyms split off: ``"IBMPowerPC"`` is IBM, Power, PC);
- ``fit`` gives each new word the next id from 1 (0 is ``<UNK>``, and the padding), in
  the order met; with ``min_frequency`` the words seen more often than it are kept,
  renumbered by falling count (ties in word order, as TF sorts them), then frozen;
- ``transform`` yields one int64 row of ``max_document_length`` per document: its
  first words' ids (unknown words 0), zeros after; ``fit_transform`` fits and then
  transforms (a generator, as TF's); ``reverse`` maps rows back to text;
- ``save`` / ``VocabularyProcessor.restore`` pickle the processor.

Imports numpy and the standard library only.

>>> vp = VocabularyProcessor(4)
>>> [row.tolist() for row in vp.fit_transform(["a b a", "c a d e f"])]
[[1, 2, 1, 0], [3, 1, 4, 5]]
"""
from __future__ import annotations

import collections
import pickle
import re

import numpy as np

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """The words of each string of ``iterator`` (a generator of lists)."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Words to ids: ``<UNK>`` is 0, a new word the next id until ``freeze()``."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token, self._support_reverse = unknown_token, support_reverse
        self._mapping = {unknown_token: 0}
        self._reverse_mapping = [unknown_token] if support_reverse else None
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        self._freeze = freeze

    def get(self, category):
        """The id of ``category``, a new one if not frozen, else 0 for an unknown word."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        if self.get(category) > 0:
            self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keep the words seen more than ``min_frequency`` times (and, with a
        ``max_frequency`` above 0, fewer than it), renumbered by falling count."""
        # (TF's order: by word, then stably by falling count)
        by_word = sorted(self._freq.items(), key=lambda kv: (isinstance(kv[0], str), kv[0]))
        ranked = sorted(by_word, key=lambda kv: kv[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        kept = []
        for category, count in ranked:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
            kept.append((category, count))
        self._freq = dict(kept)

    def reverse(self, class_id):
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to "
                             "support reverse() function.")
        return self._reverse_mapping[class_id]


class VocabularyProcessor:
    """``tf.contrib.learn.preprocessing.VocabularyProcessor`` (the module docstring)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None,
                 tokenizer_fn=None):
        self.max_document_length = int(max_document_length)
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary is not None else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn or tokenizer

    def fit(self, raw_documents, unused_y=None):
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        # (a list of the documents first: fit reads them, then transform again)
        documents = list(raw_documents)
        self.fit(documents)
        return self.transform(documents)

    def transform(self, raw_documents):
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for i, token in enumerate(tokens):
                if i >= self.max_document_length:
                    break
                word_ids[i] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(int(class_id)) for class_id in item)

    def save(self, filename):
        with open(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        with open(filename, "rb") as f:
            return pickle.loads(f.read())
