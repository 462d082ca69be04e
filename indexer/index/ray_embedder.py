"""Embedding on a Ray cluster: actors that each hold the index's embedder (the same model spec, so the same
vectors), one per CPU the cluster offers (or a GPU each for ``st:`` models where GPUs are offered).

``RayEmbedder`` is an :class:`~indexer.index.embed.Embedder`: a build embeds through it exactly as through a local
model, each batch split over the actors and put back in order. Ray is an optional extra
(``pip install 'filings-mcp[ray]'``); ``--ray`` alone starts a Ray instance on this machine, ``--ray ADDRESS``
joins a running cluster (``ray://host:10001`` or ``auto``).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from indexer.index.embed import EmbedderError, make_embedder

logger = logging.getLogger(__name__)

LOCAL = "local"  # --ray without an address: a Ray instance on this machine


class _EmbedderActor:
    """One model in one Ray worker (its matrix products on the CPUs Ray gave it)."""

    def __init__(self, spec: str) -> None:
        embedder = make_embedder(spec)
        if embedder is None:
            raise EmbedderError(f"embedder {spec!r} embeds nothing")
        self._embedder = embedder

    def describe(self) -> tuple[str, int, int]:
        return self._embedder.id, self._embedder.dim, os.getpid()

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._embedder.embed_passages(texts)

    def queries(self, texts: list[str]) -> np.ndarray:
        return self._embedder.embed_queries(texts)


def start_ray(address: str, cpus: int | None = None) -> Any:
    """Connect to ``address`` (``local``: start Ray here, with ``cpus`` CPUs) once per process; the ray module."""
    try:
        import ray
    except ImportError as exc:
        raise EmbedderError("Ray is not installed; run `pip install 'filings-mcp[ray]'`") from exc
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,  # workers' logs stay in Ray's log folder, not on the build's stdout
            "logging_level": logging.WARNING,
            "configure_logging": False,
        }
        try:
            if address == LOCAL:
                ray.init(num_cpus=cpus, **options)
            else:
                ray.init(address=address, **options)
        except Exception as exc:  # Ray raises many types for an unreachable cluster
            raise EmbedderError(f"cannot start or reach Ray at {address} ({exc}); check the address") from exc
    return ray


class RayEmbedder:
    """The embedder ``spec`` on ``actors`` Ray actors (default: one per CPU of the cluster)."""

    def __init__(self, spec: str, address: str = LOCAL, actors: int | None = None, cpus: int | None = None) -> None:
        ray = start_ray(address, cpus)
        self._ray = ray
        gpus = int(ray.cluster_resources().get("GPU", 0)) if spec.startswith("st:") else 0
        count = actors or max(1, gpus or int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=0 if gpus else 1, num_gpus=1 if gpus else 0)(_EmbedderActor)
        self._actors = [remote.remote(spec) for _ in range(count)]
        try:
            described = ray.get([actor.describe.remote() for actor in self._actors])
        except Exception as exc:  # an actor that could not load the model
            raise EmbedderError(f"the Ray actors could not load embedder {spec!r}: {exc}") from exc
        ids = {identity for identity, _, _ in described}
        if len(ids) != 1:
            raise EmbedderError(f"the Ray actors loaded different models ({', '.join(sorted(ids))}); install one")
        self.id, self.dim = described[0][0], described[0][1]
        self.workers = count  # actors: a build's batches are this many times larger, a part for each
        logger.info("embedding on %d Ray actors (%s)", count, self.id)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """The texts split over the actors (contiguous parts, so similar lengths stay together), back in order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [list(run) for run in np.array_split(np.array(texts, dtype=object), len(self._actors)) if len(run)]
        futures = [actor.passages.remote(part) for actor, part in zip(self._actors, parts, strict=False)]
        return np.concatenate(self._ray.get(futures)).astype(np.float32)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._ray.get(self._actors[0].queries.remote(texts)), dtype=np.float32)

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors = []
