"""Reports as parts of a Parquet dataset: the layout, a part's writer, and its checked metadata.

A device writes a part (:meth:`Reports.to_parquet`), the server reads it
(:func:`sklearn_ldp.io.read_reports`); both use the layout defined here.
pyarrow is imported when a part is written or read, never when this module
is imported, so a device that does not write Parquet does not need it.

Layout of one part file: one column per report field, in the order of the
fields; a field of one number per user is a column of its numpy dtype, a
field of several numbers per user (shape ``(n, k)`` or ``(n, k, l)``) a
non-nullable ``FixedSizeList`` of ``k`` (``k * l``) numbers of its dtype.
Row groups hold :data:`ROW_GROUP_ROWS` users (the last one fewer). The
file's key-value metadata holds a JSON header (:data:`HEADER_KEY`: format
and library versions, number of users, fields with their dtype and per-user
shape, the randomizer configuration, :meth:`Reports.content_hash` and the
number of users and SHA-256 of every row group) and the SHA-256 of that
header (:data:`HEADER_SHA256_KEY`).
"""

import hashlib
import json
import os
import re
import uuid

import numpy as np

from ._reports import (
    REPORTS_FORMAT_VERSION,
    _first_line,
    _json_default,
    check_format_version,
    check_library_version,
    config_fingerprint,
    describe_config_mismatch,
    library_version,
)

#: Users per row group of a part file.
ROW_GROUP_ROWS = 65_536
#: Key of the JSON header in a part's key-value metadata.
HEADER_KEY = b"sklearn_ldp.reports"
#: Key of the header's SHA-256 (hex).
HEADER_SHA256_KEY = b"sklearn_ldp.reports_sha256"
#: Largest Parquet footer read (the header with one checksum per row group
#: takes about 100 bytes per row group).
MAX_FOOTER_BYTES = 64 << 20
#: Part files are ``part-<8-digit sequence number>-<8 hex digits>.parquet``:
#: lexical order is write order (up to 10**8 parts).
PART_NAME = re.compile(r"part-(\d{8})-[0-9a-f]{8}\.parquet")


def require_pyarrow(what):
    """``(pyarrow, pyarrow.parquet)``, or an ImportError naming the extra to install."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ImportError(
            f"{what} needs pyarrow: pip install 'sklearn_ldp[parquet]'."
        ) from None
    return pyarrow, pyarrow.parquet


def field_spec(name, value):
    """``[name, dtype.str, per-user shape]`` of a field; refuse what Parquet cannot hold."""
    dtype = value.dtype
    if not (dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize in (2, 4, 8))):
        raise TypeError(
            f"Report field {name!r} has dtype {dtype}; a Parquet reports file "
            "holds bool, integer and float16/32/64 fields only."
        )
    if 0 in value.shape[1:]:
        raise ValueError(
            f"Report field {name!r} has no value per user (shape {value.shape})."
        )
    return [name, dtype.str, [int(size) for size in value.shape[1:]]]


def arrow_type(pa, dtype, shape):
    """The Arrow type of a field's column: its dtype, a fixed-size list per user if 2-D+."""
    base = pa.from_numpy_dtype(np.dtype(dtype).newbyteorder("="))
    if not shape:
        return base
    return pa.list_(pa.field("element", base, nullable=False), int(np.prod(shape)))


def rows_sha256(fields, start, stop):
    """SHA-256 (hex) of rows ``start:stop`` of every field: names, dtypes, shapes, values."""
    digest = hashlib.sha256()
    for name, value in fields.items():
        rows = np.ascontiguousarray(value[start:stop])
        digest.update(json.dumps([name, rows.dtype.str, list(rows.shape)]).encode())
        digest.update(rows.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def write_part(reports, path):
    """Write ``reports`` as a new part of the dataset directory ``path``; return its path."""
    pa, pq = require_pyarrow("Reports.to_parquet")
    directory = os.fspath(path)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ValueError(
            f"{directory} is a file; Reports.to_parquet appends a part to a "
            "dataset directory."
        )
    os.makedirs(directory, exist_ok=True)
    specs = [field_spec(name, value) for name, value in reports.fields.items()]
    # Refuse early (before compressing anything); checked again under the
    # lock, against the parts other writers may have added meanwhile.
    _check_append(directory, list_parts(directory), reports, specs)
    n = len(reports)
    starts = range(0, n, ROW_GROUP_ROWS)
    header = {
        "format_version": REPORTS_FORMAT_VERSION,
        "library": "sklearn_ldp",
        "library_version": library_version(),
        "n_users": n,
        "fields": specs,
        "config": reports.config,
        "content_sha256": reports.content_hash(),
        "row_groups": [
            [
                min(ROW_GROUP_ROWS, n - start),
                rows_sha256(reports.fields, start, start + ROW_GROUP_ROWS),
            ]
            for start in starts
        ],
    }
    text = json.dumps(header, sort_keys=True, default=_json_default)
    schema = pa.schema(
        [
            pa.field(name, arrow_type(pa, dtype, shape), nullable=False)
            for name, dtype, shape in specs
        ],
        metadata={
            HEADER_KEY: text.encode(),
            HEADER_SHA256_KEY: hashlib.sha256(text.encode()).hexdigest().encode(),
        },
    )
    columns = [
        _arrow_column(pa, value, dtype, shape)
        for value, (_, dtype, shape) in zip(reports.fields.values(), specs, strict=True)
    ]
    table = pa.Table.from_arrays(columns, schema=schema)
    tag = uuid.uuid4().hex[:8]
    temporary = os.path.join(directory, f".part-{tag}.parquet.tmp")
    try:
        with pq.ParquetWriter(
            temporary, schema, compression="zstd", write_statistics=False
        ) as writer:
            for start in starts:
                writer.write_table(
                    table.slice(start, ROW_GROUP_ROWS), row_group_size=ROW_GROUP_ROWS
                )
        # Check, number and publish under the dataset's lock, so two writers
        # appending at the same moment can neither both pass the
        # configuration check against an older state nor take the same
        # sequence number.
        with _append_lock(directory):
            parts = list_parts(directory)
            _check_append(directory, parts, reports, specs)
            numbers = [
                int(match[1]) for match in map(PART_NAME.fullmatch, parts) if match
            ]
            sequence = 1 + max(numbers, default=-1)
            target = os.path.join(directory, f"part-{sequence:08d}-{tag}.parquet")
            os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return target


class _append_lock:
    """An exclusive advisory lock on the dataset directory itself (POSIX ``flock``).

    Locking the directory (not a lock file in it) leaves nothing behind,
    and the operating system releases the lock when its holder exits, so a
    writer that dies leaves no stale lock. Where ``fcntl`` does not exist
    (Windows) appends are not serialized; the reader still refuses a
    dataset whose parts mix configurations.
    """

    def __init__(self, directory):
        self.directory = directory
        self.descriptor = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        self.descriptor = os.open(self.directory, os.O_RDONLY)
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_EX)
        except BaseException:
            os.close(self.descriptor)
            self.descriptor = None
            raise
        return self

    def __exit__(self, *exc_info):
        if self.descriptor is not None:
            import fcntl

            try:
                fcntl.flock(self.descriptor, fcntl.LOCK_UN)
            finally:
                os.close(self.descriptor)
                self.descriptor = None
        return False


def _arrow_column(pa, value, dtype, shape):
    native = np.ascontiguousarray(value, dtype=np.dtype(dtype).newbyteorder("="))
    if not shape:
        return pa.array(native)
    return pa.FixedSizeListArray.from_arrays(
        pa.array(native.reshape(-1)), type=arrow_type(pa, dtype, shape)
    )


def list_parts(directory):
    """Names of the Parquet files of a dataset directory, in lexical (= write) order.

    Hidden files (``.``, such as a part being written) and ``_`` files are
    not parts.
    """
    return sorted(
        name
        for name in os.listdir(directory)
        if name.endswith(".parquet")
        and not name.startswith((".", "_"))
        and os.path.isfile(os.path.join(directory, name))
    )


def _check_append(directory, parts, reports, specs):
    """Refuse reports whose configuration or fields differ from the dataset's.

    They are compared with the newest part whose metadata reads (every part
    was compared in the same way when it was appended, and
    :func:`sklearn_ldp.io.read_reports` checks all of them).
    """
    for name in reversed(parts):
        try:
            header = read_part_header(os.path.join(directory, name))
        except ValueError:
            continue  # a damaged part is for the reader to refuse, not the writer
        if config_fingerprint(header["config"]) != config_fingerprint(reports.config):
            raise ValueError(
                f"Cannot append reports of another randomizer configuration to "
                f"{directory} (its part {name}): "
                + describe_config_mismatch(header["config"], reports.config)
            )
        if header["fields"] != specs:
            raise ValueError(
                f"Cannot append reports with fields {specs} to {directory}, whose "
                f"part {name} has fields {header['fields']}."
            )
        return


def read_part_header(path):
    """The checked header of one part file, reading only its footer.

    Checked: the file is a Parquet file with a sklearn_ldp header whose
    SHA-256 matches, of this reports format version and library major
    version, and its columns and row groups are those the header declares.
    The row groups' content is checked against their SHA-256 when read.

    Raises
    ------
    ValueError
        With a one-line reason naming ``path``.
    """
    pa, pq = require_pyarrow("read_reports")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file.")
    size = os.path.getsize(path)
    if size == 0:
        raise ValueError(f"{path}: empty file (0 bytes), not a reports file.")
    with open(path, "rb") as handle:
        head = handle.read(4)
        handle.seek(max(size - 8, 0))
        tail = handle.read(8)
    if head != b"PAR1":
        raise ValueError(
            f"{path} is not a sklearn_ldp reports file (not a Parquet file)."
        )
    footer = int.from_bytes(tail[:4], "little") if len(tail) == 8 else -1
    if tail[4:] != b"PAR1" or not 0 < footer <= min(size - 12, MAX_FOOTER_BYTES):
        raise ValueError(
            f"{path}: truncated or corrupted Parquet file (no valid footer)."
        )
    try:
        metadata = pq.read_metadata(path)
        schema = metadata.schema.to_arrow_schema()
        group_rows = [
            metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)
        ]
    except (pa.ArrowException, OSError, ValueError, EOFError) as error:
        raise ValueError(
            f"{path}: truncated or corrupted Parquet file ({_first_line(error)})."
        ) from None
    pairs = metadata.metadata or {}
    if HEADER_KEY not in pairs:
        raise ValueError(
            f"{path} is a Parquet file but not a sklearn_ldp reports file "
            "(no reports metadata)."
        )
    text = pairs[HEADER_KEY]
    if hashlib.sha256(text).hexdigest().encode() != pairs.get(HEADER_SHA256_KEY):
        raise ValueError(
            f"{path}: the reports metadata does not match its SHA-256: the file "
            "was corrupted or altered after it was written."
        )
    try:
        header = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(
            f"{path}: corrupted reports file (metadata is not JSON)."
        ) from None
    if not isinstance(header, dict):
        raise ValueError(f"{path} is not a sklearn_ldp reports file.")
    _check_versions(path, header)
    _check_layout(pa, path, header, schema, group_rows)
    return header


def _check_versions(path, header):
    check_format_version(path, header)
    check_library_version(path, header)


def _check_layout(pa, path, header, schema, group_rows):
    """The header is complete, and the file's columns and row groups are the declared ones."""
    corrupted = f"{path}: corrupted reports file"
    n_users, fields, groups = (
        header.get(k) for k in ("n_users", "fields", "row_groups")
    )
    try:
        complete = (
            isinstance(n_users, int)
            and n_users >= 0
            and isinstance(header.get("config"), dict)
            and isinstance(header.get("content_sha256"), str)
            and isinstance(fields, list)
            and len(fields) > 0
            and len({f[0] for f in fields}) == len(fields)
            and all(_valid_spec(*f) for f in fields)
            and isinstance(groups, list)
            and all(
                isinstance(rows, int) and rows > 0 and isinstance(sha, str)
                for rows, sha in groups
            )
        )
    except (TypeError, ValueError):
        complete = False
    if not complete:
        raise ValueError(f"{corrupted} (incomplete metadata).")
    if [rows for rows, _ in groups] != group_rows or sum(group_rows) != n_users:
        raise ValueError(
            f"{corrupted} (its row groups hold {sum(group_rows)} users, its "
            f"metadata declares {n_users})."
        )
    expected = [
        pa.field(name, arrow_type(pa, dtype, shape), nullable=False)
        for name, dtype, shape in fields
    ]
    if list(schema) != expected:
        raise ValueError(
            f"{corrupted} (its columns are not the fields its metadata declares)."
        )


def _valid_spec(name, dtype, shape):
    if not (
        isinstance(name, str) and isinstance(dtype, str) and isinstance(shape, list)
    ):
        return False
    if not all(isinstance(size, int) and size > 0 for size in shape):
        return False
    try:
        field_spec(name, np.empty((0, *shape), dtype=np.dtype(dtype)))
    except TypeError:
        return False
    return True
