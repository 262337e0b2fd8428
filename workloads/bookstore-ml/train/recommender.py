"""The trained Bookstore recommender: each book's top-K most similar books (item-item cosine).

Kept apart from train.py so that `joblib.load("model.joblib")` works wherever this module is
importable, not only inside the training script.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class ItemKNNModel:
    """Top-K neighbours per book. Row i of the arrays belongs to book id i + 1.

    `neighbour_ids` is padded with 0 (no book has id 0) where a book has fewer than K neighbours;
    `neighbour_scores` are cosine similarities in (0, 1], sorted descending within each row.
    """

    neighbour_ids: np.ndarray  # int32, (n_books, top_k)
    neighbour_scores: np.ndarray  # float64, (n_books, top_k)
    params: dict

    @property
    def n_books(self) -> int:
        return self.neighbour_ids.shape[0]

    def neighbours(self, book_id: int, k: int | None = None) -> list[list]:
        """[[neighbour_id, score], …] for `book_id`, best first, at most k (default: all kept)."""
        if not 1 <= book_id <= self.n_books:
            raise KeyError(f"unknown book_id {book_id}: ids run from 1 to {self.n_books}")
        ids = self.neighbour_ids[book_id - 1]
        scores = self.neighbour_scores[book_id - 1]
        kept = [[int(i), float(s)] for i, s in zip(ids, scores) if i > 0]
        return kept if k is None else kept[:k]
