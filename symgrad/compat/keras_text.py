"""``tf.keras.preprocessing.text``: ``Tokenizer``, ``text_to_word_sequence`` and
``one_hot`` as Keras has them (pure Python: text becomes integer ids before feeding).

- ``text_to_word_sequence``: lower-cased, Keras's punctuation ``filters`` replaced by
  the split character, split, empty words dropped.
- ``Tokenizer.fit_on_texts``: word counts; ``word_index`` numbers the words 1, 2, ...
  by decreasing count (ties in order of first appearance), the ``oov_token`` first.
- ``texts_to_sequences``: ids below ``num_words`` (others dropped, or the OOV id).
- ``texts_to_matrix`` / ``sequences_to_matrix``: ``binary``, ``count``, ``freq`` or
  ``tfidf`` rows of ``num_words`` columns.

Sits in ``compat``; imports numpy only.

>>> t = Tokenizer(num_words=4)
>>> t.fit_on_texts(["the cat sat", "the cat ran", "a dog!"])
>>> t.word_index["the"], t.texts_to_sequences(["the dog sat on the cat"])
(1, [[1, 3, 1, 2]])
"""
from __future__ import annotations

import collections
import math

import numpy as np

__all__ = ["Tokenizer", "text_to_word_sequence", "one_hot"]

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text, filters=_FILTERS, lower=True, split=" "):
    """The words of ``input_text`` (Keras's rules)."""
    text = input_text.lower() if lower else input_text
    text = text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in text.split(split) if w]


def one_hot(input_text, n, filters=_FILTERS, lower=True, split=" "):
    """Keras's hashing one_hot: each word's id is ``hash(word) % (n - 1) + 1`` (Python's
    string hash, so ids change between processes unless PYTHONHASHSEED is set, as in
    Keras)."""
    return [hash(w) % (n - 1) + 1
            for w in text_to_word_sequence(input_text, filters, lower, split)]


class Tokenizer:
    """``Tokenizer(num_words=None, filters=..., lower=True, split=" ", char_level=False,
    oov_token=None)``."""

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, document_count=0, **kwargs):
        self.num_words, self.filters, self.lower, self.split = num_words, filters, lower, split
        self.char_level, self.oov_token = char_level, oov_token
        self.word_counts = collections.OrderedDict()
        self.word_docs = collections.defaultdict(int)
        self.index_docs = collections.defaultdict(int)
        self.word_index, self.index_word = {}, {}
        self.document_count = document_count

    def _words(self, text):
        if self.char_level or isinstance(text, list):
            return [c.lower() for c in text] if self.lower and not isinstance(text, list) \
                else list(text)
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts):
        """Count the words of ``texts``; number them by decreasing count."""
        for text in texts:
            self.document_count += 1
            words = self._words(text)
            for w in words:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(words):
                self.word_docs[w] += 1
        ranked = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocab = ([self.oov_token] if self.oov_token is not None else []) + \
            [w for w, _ in ranked]
        self.word_index = {w: i for i, w in enumerate(vocab, 1)}
        self.index_word = {i: w for w, i in self.word_index.items()}
        self.index_docs = collections.defaultdict(
            int, {self.word_index[w]: c for w, c in self.word_docs.items()})

    def texts_to_sequences(self, texts):
        return [self._sequence(self._words(text)) for text in texts]

    def _sequence(self, words):
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        out = []
        for w in words:
            i = self.word_index.get(w)
            if i is not None and (not self.num_words or i < self.num_words):
                out.append(i)
            elif oov is not None:
                out.append(oov)
        return out

    def sequences_to_texts(self, sequences):
        """The words of each sequence; an id unknown or past ``num_words`` is the OOV
        token (dropped without one)."""
        oov = self.oov_token
        return [" ".join(w for w in (self._word(i, oov) for i in seq) if w is not None)
                for seq in sequences]

    def _word(self, i, oov):
        word = self.index_word.get(i)
        if word is not None and not (self.num_words and i >= self.num_words):
            return word
        return oov

    def texts_to_matrix(self, texts, mode="binary"):
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """One row per sequence, ``num_words`` columns (Keras's modes)."""
        if mode not in ("binary", "count", "freq", "tfidf"):
            raise ValueError(f"Unknown vectorization mode: {mode}")
        n = self.num_words or len(self.word_index) + 1
        out = np.zeros((len(sequences), n))
        for row, seq in enumerate(sequences):
            counts = collections.Counter(i for i in seq if i < n)
            for i, c in counts.items():
                out[row, i] = _weight(mode, c, len(seq), self.document_count,
                                      self.index_docs.get(i, 0))
        return out


def _weight(mode, count, length, documents, docs_with_word):
    if mode == "count":
        return count
    if mode == "freq":
        return count / length
    if mode == "binary":
        return 1.0
    tf = 1 + math.log(count)   # (Keras's tfidf)
    return tf * math.log(1 + documents / (1 + docs_with_word))
