"""Report streams: reports the server reads one chunk at a time.

A *report stream* is what ``fit_reports`` accepts besides one in-memory
:class:`~sklearn_ldp.randomizers.Reports`: an iterable of ``Reports``
chunks that share one randomizer configuration. The server validates and
aggregates each chunk, then drops it, so a one-pass server's memory is
bounded by the chunk size, not by the number of users.

:class:`ReportStream` is the contract (``config``, ``len()``, iteration,
``partitions()`` for a distributed engine); :func:`stream_reports` cuts an
in-memory ``Reports`` into one, :func:`as_report_stream` wraps any iterable
of ``Reports``, and :func:`sklearn_ldp.read_reports` reads one from a
Parquet dataset on disk.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..randomizers import Reports
from ..randomizers._reports import config_fingerprint, describe_config_mismatch

#: Users per chunk when a stream is cut from in-memory reports or read from
#: disk without an explicit ``chunk_size``.
DEFAULT_STREAM_CHUNK = 262_144


@dataclass(frozen=True)
class Partition:
    """One independently loadable piece of a report stream.

    ``load()`` returns the partition's ``Reports`` (it is sent to a worker
    of a distributed engine, so it must be picklable and must not hold the
    reports themselves for an on-disk stream); ``start`` is the position of
    its first report in the stream and ``n_reports`` its length.
    """

    start: int
    n_reports: int
    load: Callable[[], Any]


class ReportStream:
    """A lazy sequence of ``Reports`` chunks made with one randomizer configuration.

    Subclasses implement :meth:`partitions`; iteration loads the partitions
    one after the other (re-iterable: each pass starts again from the
    first chunk), ``len()`` is the total number of reports and ``config``
    the public configuration every chunk carries (a chunk with another one
    is refused when it is read).

    Parameters
    ----------
    config : dict
        The public randomizer configuration of every chunk.
    backend : {None, 'dask'}, default=None
        The engine ``fit_reports`` runs the per-partition aggregation on:
        None (this process, one chunk at a time) or ``'dask'`` (the active
        ``distributed.Client``, else Dask's local scheduler).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import Reports
    >>> from sklearn_ldp.io import stream_reports
    >>> reports = Reports({"x": np.arange(10.0)[:, None]}, {"name": "demo"})
    >>> stream = stream_reports(reports, chunk_size=4)
    >>> len(stream), [len(chunk) for chunk in stream]
    (10, [4, 4, 2])
    """

    def __init__(self, config, *, backend=None):
        if backend not in (None, "dask"):
            raise ValueError(f"backend must be None or 'dask', got {backend!r}.")
        self.config = dict(config)
        self.backend = backend

    def partitions(self):  # pragma: no cover - abstract
        """The stream's :class:`Partition` objects, in order."""
        raise NotImplementedError

    @property
    def rereadable(self):
        """True when the stream can be read several times (multi-pass servers)."""
        return True

    def __len__(self):
        return int(sum(part.n_reports for part in self.partitions()))

    def __iter__(self):
        expected = config_fingerprint(self.config)
        for part in self.partitions():
            chunk = part.load()
            check_chunk(chunk, expected, self.config)
            yield chunk

    def __repr__(self):
        return (
            f"{type(self).__name__}(n_reports={len(self)}, "
            f"n_partitions={len(self.partitions())}, backend={self.backend!r})"
        )


def check_chunk(chunk, fingerprint, config):
    """Refuse a chunk that is not ``Reports`` of the stream's configuration."""
    if not isinstance(chunk, Reports):
        raise TypeError(
            f"A report stream must yield Reports objects, got {type(chunk).__name__}."
        )
    if config_fingerprint(chunk.config) != fingerprint:
        raise ValueError(
            "A report stream mixes randomizer configurations: "
            + describe_config_mismatch(config, chunk.config)
        )


class _Slice:
    """``load()`` of one slice of in-memory reports (picklable)."""

    def __init__(self, reports, rows):
        self.reports, self.rows = reports, rows

    def __call__(self):
        return self.reports.subset(self.rows)


class InMemoryReportStream(ReportStream):
    """Reports already in memory, served in chunks (see :func:`stream_reports`)."""

    def __init__(self, reports, *, chunk_size=None, backend=None):
        super().__init__(reports.config, backend=backend)
        self.reports = reports
        self.chunk_size = _check_chunk_size(chunk_size)

    def partitions(self):
        n, size = len(self.reports), self.chunk_size
        return [
            Partition(start, min(size, n - start), _Slice(self.reports, slice(start, start + size)))
            for start in range(0, n, size)
        ]


class IterableReportStream(ReportStream):
    """Any iterable of ``Reports`` (a list of batches, a generator) as a stream.

    A list (or any re-iterable) can be read several times; a generator only
    once: a server that needs a second pass says so with a clear error.
    ``len()`` counts the reports, reading the whole iterable once, unless
    the iterable has been given as a list.
    """

    def __init__(self, iterable, *, backend=None):
        if isinstance(iterable, (list, tuple)):
            self._chunks, self._iterator = list(iterable), None
            if not self._chunks:
                raise ValueError("No reports: the report stream is empty.")
            first = self._chunks[0]
        else:
            self._chunks, self._iterator = None, iter(iterable)
            try:
                first = next(self._iterator)
            except StopIteration:
                raise ValueError("No reports: the report stream is empty.") from None
            self._first = first
        if not isinstance(first, Reports):
            raise TypeError(
                "A report stream must yield Reports objects, got "
                f"{type(first).__name__}."
            )
        super().__init__(first.config, backend=backend)
        self._consumed = False

    @property
    def rereadable(self):
        return self._chunks is not None

    def _chunks_once(self):
        if self._chunks is not None:
            yield from self._chunks
            return
        if self._consumed:
            raise ValueError(
                "This report stream wraps a generator, which can be read once; "
                "this server needs another pass: pass a list of Reports or a "
                "stream from sklearn_ldp.read_reports."
            )
        self._consumed = True
        yield self._first
        yield from self._iterator

    def partitions(self):
        if self._chunks is None:
            # Materializing a generator's chunks would hold every report.
            raise ValueError(
                "A report stream made from a generator has no partitions; "
                "pass a list of Reports or a stream from sklearn_ldp.read_reports."
            )
        starts = np.concatenate([[0], np.cumsum([len(c) for c in self._chunks])])
        return [
            Partition(int(start), len(chunk), _Constant(chunk))
            for start, chunk in zip(starts[:-1], self._chunks, strict=True)
        ]

    def __len__(self):
        if self._chunks is not None:
            return int(sum(len(c) for c in self._chunks))
        raise TypeError(
            "The length of a report stream made from a generator is unknown "
            "until it is read."
        )

    def __iter__(self):
        expected = config_fingerprint(self.config)
        for chunk in self._chunks_once():
            check_chunk(chunk, expected, self.config)
            yield chunk


class _Constant:
    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


def _check_chunk_size(chunk_size):
    if chunk_size is None:
        return DEFAULT_STREAM_CHUNK
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
        raise TypeError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size}.")
    return int(chunk_size)


def stream_reports(reports, *, chunk_size=None, backend=None):
    """In-memory ``reports`` as a :class:`ReportStream` of ``chunk_size`` users per chunk.

    Parameters
    ----------
    reports : Reports
    chunk_size : int or None, default=None
        Users per chunk (None: 262,144).
    backend : {None, 'dask'}, default=None

    Returns
    -------
    stream : ReportStream

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import Reports
    >>> from sklearn_ldp.io import stream_reports
    >>> r = Reports({"x": np.zeros((5, 2))}, {"name": "demo"})
    >>> [len(c) for c in stream_reports(r, chunk_size=2)]
    [2, 2, 1]
    """
    if not isinstance(reports, Reports):
        raise TypeError(f"Expected Reports, got {type(reports).__name__}.")
    return InMemoryReportStream(reports, chunk_size=chunk_size, backend=backend)


def as_report_stream(reports):
    """``reports`` as a :class:`ReportStream` (a stream is returned as is).

    Accepts a ``ReportStream``, or any iterable of ``Reports`` with one
    configuration (a list of batches, a generator). A single ``Reports``
    object is a stream of one chunk.

    Raises
    ------
    TypeError
        For anything else (an array, a dict, a string, a path: read a
        Parquet dataset with :func:`sklearn_ldp.read_reports`).
    """
    if isinstance(reports, ReportStream):
        return reports
    if isinstance(reports, Reports):
        return IterableReportStream([reports])
    if isinstance(reports, (str, bytes, dict, np.ndarray)) or not hasattr(
        reports, "__iter__"
    ):
        raise TypeError(
            "fit_reports expects a Reports object or a report stream (an "
            "iterable of Reports, e.g. sklearn_ldp.read_reports(path)), got "
            f"{type(reports).__name__}."
        )
    return IterableReportStream(reports)
