"""Reading a Parquet dataset of reports as a lazy report stream.

Opening a dataset reads the footer of every part (checked metadata: the
configuration, the fields, the row groups); the reports are read later,
one chunk at a time, each row group checked against its SHA-256 as it is
decoded. The layout is that of :mod:`sklearn_ldp.randomizers._reports_parquet`
(the part writer, :meth:`~sklearn_ldp.randomizers.Reports.to_parquet`).
"""

import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..randomizers import Reports
from ..randomizers._reports import (
    _first_line,
    config_fingerprint,
    describe_config_mismatch,
)
from ..randomizers._reports_parquet import (
    list_parts,
    read_part_header,
    require_pyarrow,
    rows_sha256,
)
from ._stream import DEFAULT_STREAM_CHUNK, Partition, ReportStream, check_chunk


@dataclass(frozen=True)
class ParquetPart:
    """One part file of a Parquet dataset of reports, from its checked metadata.

    ``content_sha256`` is the part's :meth:`~sklearn_ldp.randomizers.Reports.content_hash`
    (the same reports written twice have the same one).
    """

    path: str
    n_reports: int
    content_sha256: str
    library_version: str


class _Piece(NamedTuple):
    """Rows ``lo:hi`` of the consecutive row groups ``groups`` of one part file.

    ``lo`` and ``hi`` count from the first row of ``groups[0]``; ``rows`` and
    ``sha256`` are each group's number of rows and checksum.
    """

    path: str
    groups: tuple
    rows: tuple
    sha256: tuple
    lo: int
    hi: int


class ParquetReportStream(ReportStream):
    """A Parquet dataset of reports, read one chunk at a time (made by :func:`read_reports`).

    ``len()``, ``config`` and ``parts`` come from the parts' metadata, read
    when the dataset is opened; iterating reads the reports chunk by chunk
    (peak memory: about one chunk and one row group), and every row group
    is checked against its SHA-256 when it is read.

    Parameters
    ----------
    headers : list of (str, dict)
        Each part file and its checked metadata, in order
        (``sklearn_ldp.randomizers._reports_parquet.read_part_header``).
    chunk_size : int or None, default=None
        Reports per chunk; None: the dataset's own row groups, gathered
        within each part into chunks of at most 262,144 reports.
    backend : {None, 'dask'}, default=None

    Attributes
    ----------
    config : dict
        The randomizer configuration every part carries.
    parts : tuple of ParquetPart
        The part files, in the order their reports are read.
    chunk_size : int or None

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from sklearn_ldp import read_reports
    >>> from sklearn_ldp.randomizers import Reports
    >>> directory = os.path.join(tempfile.mkdtemp(), "reports")
    >>> for n in (5, 3):
    ...     _ = Reports({"x": np.zeros((n, 2))}, {"name": "demo"}).to_parquet(directory)
    >>> stream = read_reports(directory, chunk_size=4)
    >>> type(stream).__name__, len(stream), len(stream.parts)
    ('ParquetReportStream', 8, 2)
    >>> [(p.start, p.n_reports) for p in stream.partitions()]
    [(0, 4), (4, 4)]
    >>> [chunk["x"].shape for chunk in stream]
    [(4, 2), (4, 2)]
    """

    def __init__(self, headers, *, chunk_size=None, backend=None):
        if not headers:
            raise ValueError("A Parquet report stream needs at least one part file.")
        first_path, first = headers[0]
        super().__init__(first["config"], backend=backend)
        fingerprint = config_fingerprint(self.config)
        for path, header in headers[1:]:
            if config_fingerprint(header["config"]) != fingerprint:
                raise ValueError(
                    f"{path}: made with another randomizer configuration than "
                    f"{first_path}: "
                    + describe_config_mismatch(self.config, header["config"])
                )
            if header["fields"] != first["fields"]:
                raise ValueError(
                    f"{path}: fields {header['fields']} differ from those of "
                    f"{first_path}, {first['fields']}."
                )
        self.chunk_size = chunk_size
        self.parts = tuple(
            ParquetPart(
                path,
                header["n_users"],
                header["content_sha256"],
                header["library_version"],
            )
            for path, header in headers
        )
        self._fields = tuple(
            (name, np.dtype(dtype), tuple(shape))
            for name, dtype, shape in first["fields"]
        )
        self._groups = [(path, header["row_groups"]) for path, header in headers]
        self._partitions = None

    def __len__(self):
        return int(sum(part.n_reports for part in self.parts))

    def partitions(self):
        """One :class:`~sklearn_ldp.io.Partition` per chunk, in order.

        Each ``load`` is a small picklable object (file paths, row-group
        indices and row ranges, checksums, fields and configuration) that
        reads just its row groups, checks them, and returns the chunk's
        ``Reports``. A chunk of ``chunk_size`` reports may span several
        parts; a row group it shares with the next chunk is read by both.
        """
        if self._partitions is None:
            if self.chunk_size is None:
                chunks = self._row_group_chunks()
            else:
                chunks = self._exact_chunks(self.chunk_size)
            self._partitions, start = [], 0
            for pieces in chunks:
                n_rows = sum(piece.hi - piece.lo for piece in pieces)
                loader = _ChunkLoader(tuple(pieces), self._fields, self.config, n_rows)
                self._partitions.append(Partition(start, n_rows, loader))
                start += n_rows
        return list(self._partitions)

    def __iter__(self):
        # One pass over the row groups in order: a group two chunks share is
        # decoded and checked once.
        fingerprint = config_fingerprint(self.config)
        with _GroupReader(self._fields) as reader:
            for part in self.partitions():
                chunk = part.load.read(reader)
                check_chunk(chunk, fingerprint, self.config)
                yield chunk

    def _row_group_chunks(self):
        """Whole row groups of one part at a time, up to the default chunk size."""
        for path, groups in self._groups:
            pieces, total = [], 0
            for index, (rows, sha) in enumerate(groups):
                if pieces and total + rows > DEFAULT_STREAM_CHUNK:
                    yield [_merge(pieces)]
                    pieces, total = [], 0
                pieces.append(_Piece(path, (index,), (rows,), (sha,), 0, rows))
                total += rows
            if pieces:
                yield [_merge(pieces)]

    def _exact_chunks(self, size):
        """Chunks of ``size`` reports (the last one shorter), across parts."""
        pieces, room = [], size
        for path, groups in self._groups:
            bounds = np.concatenate([[0], np.cumsum([rows for rows, _ in groups])])
            position = 0
            while position < bounds[-1]:
                stop = min(position + room, int(bounds[-1]))
                first = int(np.searchsorted(bounds, position, side="right")) - 1
                last = int(np.searchsorted(bounds, stop, side="left")) - 1
                chosen = groups[first : last + 1]
                pieces.append(
                    _Piece(
                        path,
                        tuple(range(first, last + 1)),
                        tuple(rows for rows, _ in chosen),
                        tuple(sha for _, sha in chosen),
                        position - int(bounds[first]),
                        stop - int(bounds[first]),
                    )
                )
                room -= stop - position
                position = stop
                if room == 0:
                    yield pieces
                    pieces, room = [], size
        if pieces:
            yield pieces


def _merge(pieces):
    """Consecutive whole-group pieces of one file as one piece."""
    return _Piece(
        pieces[0].path,
        sum((p.groups for p in pieces), ()),
        sum((p.rows for p in pieces), ()),
        sum((p.sha256 for p in pieces), ()),
        0,
        sum(p.hi for p in pieces),
    )


class _ChunkLoader:
    """``load()`` of one chunk of a Parquet dataset (picklable; holds no reports)."""

    def __init__(self, pieces, fields, config, n_rows):
        self.pieces, self.fields, self.config, self.n_rows = (
            pieces,
            fields,
            config,
            n_rows,
        )

    def __call__(self):
        with _GroupReader(self.fields) as reader:
            return self.read(reader)

    def read(self, reader):
        """The chunk's ``Reports``, its row groups read (and checked) by ``reader``."""
        out = {
            name: np.empty((self.n_rows, *shape), dtype=dtype)
            for name, dtype, shape in self.fields
        }
        filled = 0
        for piece in self.pieces:
            offset = 0
            for index, rows, sha in zip(
                piece.groups, piece.rows, piece.sha256, strict=True
            ):
                lo, hi = max(piece.lo - offset, 0), min(piece.hi - offset, rows)
                if lo < hi:
                    group = reader.group(piece.path, index, rows, sha)
                    for name in out:
                        out[name][filled : filled + hi - lo] = group[name][lo:hi]
                    filled += hi - lo
                offset += rows
        return Reports(out, self.config)


class _GroupReader:
    """Decodes and checks row groups; keeps the open file and the last group."""

    def __init__(self, fields):
        self.fields = fields
        self._pa, self._pq = require_pyarrow("read_reports")
        self._path = self._file = None
        self._last = (None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._close()
        return False

    def _close(self):
        if self._file is not None:
            self._file.close()
        self._path = self._file = None

    def group(self, path, index, rows, sha):
        """Row group ``index`` of ``path`` as ``{name: array}``, checked against ``sha``."""
        if self._last[0] == (path, index):
            return self._last[1]
        try:
            if self._path != path:
                self._close()
                self._file = self._pq.ParquetFile(path)
                self._path = path
            table = self._file.read_row_group(index, use_threads=False)
            group = {
                name: self._column(table, name, dtype, shape, rows)
                for name, dtype, shape in self.fields
            }
        except (
            self._pa.ArrowException,
            OSError,
            ValueError,
            EOFError,
            KeyError,
        ) as error:
            raise ValueError(
                f"{path}: truncated or corrupted Parquet file, row group {index} "
                f"({_first_line(error)})."
            ) from None
        if rows_sha256(group, 0, rows) != sha:
            raise ValueError(
                f"{path}: row group {index} does not match its SHA-256: the file "
                "was corrupted or altered after it was written."
            )
        self._last = ((path, index), group)
        return group

    def _column(self, table, name, dtype, shape, rows):
        column = table.column(name)
        if table.num_rows != rows or column.null_count:
            raise ValueError(f"row group of {table.num_rows} rows, {rows} expected")
        values = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        if shape:
            values = values.flatten()
        array = values.to_numpy(zero_copy_only=False).reshape(rows, *shape)
        return array.astype(dtype, copy=False)


def _check_chunk_size(chunk_size):
    if chunk_size is None:
        return None
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
        raise TypeError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size}.")
    return int(chunk_size)


def _part_files(path):
    """The part files ``path`` names: a dataset directory's, a file, or a list of them."""
    if isinstance(path, (str, os.PathLike)):
        path = os.fspath(path)
        if os.path.isdir(path):
            names = list_parts(path)
            if not names:
                raise ValueError(
                    f"{path}: no Parquet part file (*.parquet) in this directory."
                )
            return [os.path.join(path, name) for name in names]
        if os.path.isfile(path):
            return [path]
        raise ValueError(f"{path}: no such file or directory.")
    if isinstance(path, bytes) or not hasattr(path, "__iter__"):
        raise TypeError(
            "read_reports expects a path (str or path-like) or a list of paths, "
            f"got {type(path).__name__}."
        )
    files = [file for item in path for file in _part_files(item)]
    if not files:
        raise ValueError("read_reports: no path given.")
    return files


def read_reports(path, *, chunk_size=None, backend=None):
    """Open a Parquet dataset of reports as a lazy report stream.

    Opening reads only the metadata of every part file (its footer): each
    is checked (a sklearn_ldp reports file of this format version and
    library major version, metadata matching its SHA-256, columns and row
    groups as declared) and every part must carry the same randomizer
    configuration and fields. ``len()`` and ``config`` are then known; the
    reports are read when the stream is iterated (or a partition loaded),
    one chunk at a time, each row group checked against its SHA-256.
    ``fit_reports`` accepts the stream.

    Parameters
    ----------
    path : str, path-like, or list of them
        A dataset directory written by
        :meth:`~sklearn_ldp.randomizers.Reports.to_parquet` (its
        ``*.parquet`` files in lexical order, which is the order they were
        written; hidden and ``_`` files are skipped), one part file, or a
        list of directories and files (read in that order).
    chunk_size : int or None, default=None
        Reports per chunk (the last one shorter); chunks may span parts.
        None: the row groups as written (65,536 reports), gathered within
        each part into chunks of at most 262,144 reports, so that no row
        group is read twice.
    backend : {None, 'dask'}, default=None
        ``'dask'``: ``fit_reports`` computes the per-partition aggregates on
        the Dask cluster in use (needs ``pip install 'sklearn_ldp[dask]'``).

    Returns
    -------
    stream : ParquetReportStream

    Raises
    ------
    ValueError
        With a one-line reason naming the file: a missing path, a directory
        without part files, an empty, truncated, corrupted or non-Parquet
        file, a Parquet file that is not a reports file, another format or
        library major version, or parts of different configurations (naming
        the differing keys) or fields. A row group whose content does not
        match its SHA-256 is refused in the same way when it is read.
    ImportError
        Without pyarrow (``pip install 'sklearn_ldp[parquet]'``), or dask
        for ``backend='dask'``.

    See Also
    --------
    sklearn_ldp.randomizers.Reports.to_parquet : Append reports to a dataset.
    sklearn_ldp.io.stream_reports : In-memory reports as a stream.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from sklearn_ldp import read_reports
    >>> from sklearn_ldp.randomizers import Reports
    >>> directory = os.path.join(tempfile.mkdtemp(), "reports")
    >>> batch = Reports({"x": np.arange(10.0).reshape(5, 2)}, {"name": "demo"})
    >>> _ = batch.to_parquet(directory)
    >>> _ = batch.to_parquet(directory)
    >>> stream = read_reports(directory, chunk_size=4)
    >>> len(stream), stream.config
    (10, {'name': 'demo'})
    >>> [len(chunk) for chunk in stream]
    [4, 4, 2]
    >>> Reports.concatenate(stream).content_hash() == Reports.concatenate(
    ...     [batch, batch]).content_hash()
    True
    """
    chunk_size = _check_chunk_size(chunk_size)
    if backend not in (None, "dask"):
        raise ValueError(f"backend must be None or 'dask', got {backend!r}.")
    require_pyarrow("read_reports")
    if backend == "dask":
        from ._dask import require_dask

        require_dask()
    headers = [(file, read_part_header(file)) for file in _part_files(path)]
    return ParquetReportStream(headers, chunk_size=chunk_size, backend=backend)
