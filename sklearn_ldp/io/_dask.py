"""Per-partition aggregation on Dask: the cluster computes statistics, the driver adds them.

Nothing here is a scheduler of our own: with an active
``distributed.Client`` the partitions' tasks are submitted to it (and
combined as they complete); without one, ``dask.compute`` runs them on
Dask's local scheduler. Only the per-partition aggregates (statistics whose
size does not depend on the number of reports) travel back to the driver.
A multi-pass server runs one such computation per pass (its validating
pass, then one per evaluation of its oracle's sums), each partition's
result the sums over its valid reports.
"""

from ._progress import progress


def require_dask():
    """Import dask, or say which extra to install."""
    try:
        import dask
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "backend='dask' needs dask: pip install 'sklearn_ldp[dask]'."
        ) from None
    return dask


def active_client():
    """The active ``distributed.Client``, or None (no distributed, or no client)."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:
        return None


def aggregate_on_dask(task, partitions, *, verbose=False, desc="fit"):
    """``[task(part) for part in partitions]``, computed by Dask.

    ``task`` (picklable) maps one partition to a small result (an aggregate
    and a tally, or a pass's sums), numbered by the partition's index. The
    results come back in completion order on a distributed cluster (the
    callers sort them by that index before adding them, so the sums do not
    depend on which worker finishes first).
    """
    dask = require_dask()
    partitions = list(partitions)
    client = active_client()
    with progress(
        total=len(partitions), desc=f"{desc} (dask)", verbose=verbose, unit="partitions"
    ) as bar:
        if client is not None:
            from distributed import as_completed

            futures = client.map(task, partitions, pure=False)
            results = []
            for future in as_completed(futures):
                results.append(future.result())
                bar.update(1)
                future.release()
            return results
        delayed = [dask.delayed(task, pure=False)(part) for part in partitions]
        results = list(dask.compute(*delayed))
        bar.update(len(partitions))
        return results
