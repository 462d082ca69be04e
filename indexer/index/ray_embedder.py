"""Embedding on a Ray cluster: actors that each hold the index's embedder (the same model spec, so the same
vectors), one per CPU the cluster offers (or a GPU each for ``st:`` models where GPUs are offered).

``RayEmbedder`` is an :class:`~indexer.index.embed.Embedder`: a build embeds through it exactly as through a local
model, each batch split over the actors and put back in order. Ray is an optional extra
(``pip install 'filings-mcp[ray]'``); ``--ray`` alone starts a Ray instance on this machine, ``--ray ADDRESS``
joins a running cluster (``ray://host:10001`` or ``auto``).
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import numpy as np

from indexer.index.embed import EmbedderError, make_embedder

logger = logging.getLogger(__name__)

LOCAL = "local"  # --ray without an address: a Ray instance on this machine
LOCAL_STARTS = 2  # tries at starting a local Ray instance (its node can miss its startup deadline under load)
REACH_S = 10.0  # how long a cluster's address may take to accept a connection before the build is told it is not there


class _EmbedderActor:
    """One model in one Ray worker (its matrix products on the CPUs Ray gave it)."""

    def __init__(self, spec: str, cache_dir: Path) -> None:
        embedder = make_embedder(spec, cache_dir)
        if embedder is None:
            raise EmbedderError(f"embedder {spec!r} embeds nothing")
        self._embedder = embedder

    def identity(self) -> str:
        return self._embedder.id

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._embedder.embed_passages(texts)


def check_reachable(address: str, timeout: float = REACH_S) -> None:
    """Raise :class:`EmbedderError` when nothing accepts a connection at ``address`` (``ray://host:port`` or
    ``host:port``) within ``timeout`` seconds: Ray itself would wait minutes without a word."""
    hostport = address.removeprefix("ray://").rsplit("/", 1)[0]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        return  # not a host and port ("auto"): Ray finds the cluster itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise EmbedderError(
            f"no Ray cluster answers at {address} ({reason} within {timeout:g} s): start it there (`ray start --head`)"
            " or check the address; --ray without an address runs Ray on this machine"
        ) from exc


def start_ray(address: str, cpus: int | None = None) -> Any:
    """Connect to ``address`` (``local``: start Ray here, with ``cpus`` CPUs) once per process; the ray module."""
    try:
        import ray
    except ImportError as exc:
        raise EmbedderError("Ray is not installed; run `pip install 'filings-mcp[ray]'`") from exc
    if not ray.is_initialized():
        if address != LOCAL:
            check_reachable(address)
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,  # workers' logs stay in Ray's log folder, not on the build's stdout
            "logging_level": logging.WARNING,
            "configure_logging": False,
        }
        starts = LOCAL_STARTS if address == LOCAL else 1
        for start in range(1, starts + 1):
            try:
                if address == LOCAL:
                    ray.init(num_cpus=cpus, **options)
                else:
                    ray.init(address=address, **options)
                break
            except Exception as exc:  # Ray raises many types for an unreachable cluster
                if start == starts:
                    raise EmbedderError(f"cannot start or reach Ray at {address} ({exc}); check the address") from exc
                # a local node's raylet now and then never registers within Ray's fixed 30 s ("The current node
                # timed out during startup"); a second start, after cleaning up the first, comes up
                logger.warning("Ray did not start here (%s); starting it once more", exc)
                ray.shutdown()
    return ray


class RayEmbedder:
    """The embedder ``spec`` on ``actors`` Ray actors (default: one per CPU of the cluster, or per GPU for ``st:``
    models where GPUs are offered), started on the first batch — so that a build's parsing, before it, has every
    CPU. Its id, dimension and queries come from the model loaded here."""

    def __init__(
        self, spec: str, cache_dir: Path, address: str = LOCAL, actors: int | None = None, cpus: int | None = None
    ) -> None:
        local = make_embedder(spec, cache_dir)
        if local is None:
            raise EmbedderError(f"embedder {spec!r} embeds nothing")
        self._ray = start_ray(address, cpus)
        self._spec, self._local, self._cache_dir = local.spec, local, cache_dir  # actors run the engine that runs here
        self.id, self.dim, self.spec = local.id, local.dim, local.spec
        self._actors: list[Any] = []
        resources = self._ray.cluster_resources()
        self._gpus = int(resources.get("GPU", 0)) if spec.startswith("st:") else 0
        self.workers = actors or max(1, self._gpus or int(resources.get("CPU", 1)))  # a build's batches are this
        # many times larger, a part for each actor

    def _started(self) -> list[Any]:
        if self._actors:
            return self._actors
        gpus = self._gpus
        remote = self._ray.remote(num_cpus=0 if gpus else 1, num_gpus=1 if gpus else 0)(_EmbedderActor)
        self._actors = [remote.remote(self._spec, self._cache_dir) for _ in range(self.workers)]
        try:
            loaded = set(self._ray.get([actor.identity.remote() for actor in self._actors]))
        except Exception as exc:  # an actor that could not load the model
            self.close()
            raise EmbedderError(f"the Ray actors could not load embedder {self._spec!r}: {exc}") from exc
        if ids := loaded - {self.id}:
            self.close()
            raise EmbedderError(f"the Ray actors loaded {', '.join(sorted(ids))}, not {self.id}; install one version")
        logger.info("embedding on %d Ray actors (%s)", len(self._actors), self.id)
        return self._actors

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """The texts split over the actors (contiguous parts, so similar lengths stay together), back in order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        actors = self._started()
        parts = [list(run) for run in np.array_split(np.array(texts, dtype=object), len(actors)) if len(run)]
        futures = [actor.passages.remote(part) for actor, part in zip(actors, parts, strict=False)]
        return np.concatenate(self._ray.get(futures)).astype(np.float32)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._local.embed_queries(texts)

    def close(self) -> None:
        """Stop the actors (the CPUs they hold go back to the cluster)."""
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors = []
