"""The fuzzer's worker processes, parent side: :mod:`gpuia.util.worker_pool`, where the pool
now lives (``gpuia check --workers`` runs on it too), under its old import path."""

from __future__ import annotations

from ..util.worker_pool import Outcome, Pool, Worker, WorkerStartError

__all__ = ["Outcome", "Pool", "Worker", "WorkerStartError"]
