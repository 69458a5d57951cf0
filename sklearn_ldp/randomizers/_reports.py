"""What the server receives: the reports of a population of users."""

import hashlib
import importlib.metadata
import json
import os
import zipfile

import numpy as np

#: Version of the file format written by :meth:`Reports.save`. Version 2
#: renamed the configuration values that carried paper labels (a GLM
#: ``protocol`` of ``'seed003'`` / ``'seed001'`` is now ``'power_copies'`` /
#: ``'product_copies'``; ``approximation='lemma32'`` is ``'smoothed_quantile'``)
#: and moved randomizer classes, whose names the configuration carries; its
#: header carries the library version and the SHA-256 of the content, and the
#: file the SHA-256 of the header.
REPORTS_FORMAT_VERSION = 2

#: Largest header a reports file may hold (the JSON configuration).
MAX_HEADER_BYTES = 1 << 20


def library_version():
    """The installed sklearn_ldp version, read without importing the estimators."""
    try:
        return importlib.metadata.version("sklearn_ldp")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - source tree
        return "0+unknown"


def _major(version):
    return str(version).split(".", 1)[0]


class Reports:
    """The messages a population of users sent, plus the public configuration.

    A ``Reports`` object is everything the server (``fit_reports``) may use:
    per-user arrays (one row per user; each row depends only on that user's
    record and public randomness) and the public configuration of the
    randomizer that produced them. It never holds raw data.

    Parameters
    ----------
    fields : dict of str to ndarray
        Per-user arrays, all with the same first dimension (the users).
        Order is preserved in :meth:`as_matrix`.
    config : dict
        Public, JSON-serializable configuration of the randomizer
        (mechanism, epsilon, delta, bounds, public seeds, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import Reports
    >>> r = Reports({"x": np.zeros((3, 2)), "y": np.ones(3)}, {"name": "demo"})
    >>> len(r), r.as_matrix().shape
    (3, (3, 3))
    >>> len(Reports.concatenate([r, r]))
    6
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "batch.npz")
    >>> r.save(path)
    >>> Reports.load(path).config
    {'name': 'demo'}
    >>> Reports.load(path).content_hash() == r.content_hash()
    True
    """

    def __init__(self, fields, config):
        if not fields:
            raise ValueError("Reports need at least one field.")
        self.fields = {name: np.asarray(value) for name, value in fields.items()}
        lengths = {
            value.shape[0] if value.ndim else -1 for value in self.fields.values()
        }
        if len(lengths) != 1 or -1 in lengths:
            raise ValueError(
                "Every report field must have one row per user; got first "
                f"dimensions {sorted(lengths)}."
            )
        self.config = dict(config)

    def __len__(self):
        return next(iter(self.fields.values())).shape[0]

    def __getitem__(self, name):
        return self.fields[name]

    def __repr__(self):
        shapes = ", ".join(f"{k}: {v.shape}" for k, v in self.fields.items())
        return f"Reports(n_users={len(self)}, {shapes}, config={self.config!r})"

    @property
    def n_features(self):
        """Number of features of the raw records (public configuration)."""
        return self.config.get("n_features")

    def as_matrix(self):
        """All per-user values as one ``(n_users, k)`` float array.

        Every number the server receives from or about each user, public
        per-user values included, so the randomizer can be audited as a
        black box.
        """
        n = len(self)
        return np.hstack(
            [value.reshape(n, -1).astype(np.float64) for value in self.fields.values()]
        )

    def subset(self, indices):
        """The reports of a subset of users (an index array or a slice)."""
        return Reports({k: v[indices] for k, v in self.fields.items()}, self.config)

    def content_hash(self):
        """SHA-256 (hex) of the configuration and every field: names, dtypes, shapes, values.

        Two batches with the same hash are the same reports (a batch sent
        twice); :meth:`save` stores it and :meth:`load` checks it.
        """
        digest = hashlib.sha256(config_fingerprint(self.config).encode())
        for name, value in self.fields.items():
            value = np.ascontiguousarray(value)
            digest.update(json.dumps([name, value.dtype.str, value.shape]).encode())
            digest.update(value.tobytes())
        return digest.hexdigest()

    def save(self, path):
        """Write the reports to a ``.npz`` file (no pickle) with their configuration.

        The file stores every field and a JSON header: the public
        configuration, the file format version, the library version, the
        number of users and the SHA-256 of the content
        (:meth:`content_hash`); the SHA-256 of the header itself is stored
        beside it. :meth:`load` checks all of them.
        """
        header = {
            "format_version": REPORTS_FORMAT_VERSION,
            "library": "sklearn_ldp",
            "library_version": library_version(),
            "n_users": len(self),
            "fields": list(self.fields),
            "config": self.config,
            "content_sha256": self.content_hash(),
        }
        text = json.dumps(header, sort_keys=True, default=_json_default)
        arrays = {f"field_{i}": value for i, value in enumerate(self.fields.values())}
        np.savez(
            path,
            header=np.array(text),
            header_sha256=np.array(hashlib.sha256(text.encode()).hexdigest()),
            **arrays,
        )

    def to_parquet(self, path):
        """Append the reports to the Parquet dataset directory ``path``, as a new part.

        The directory is created if missing. The part is one file,
        ``part-<sequence number>-<random suffix>.parquet`` (lexical order of
        the names is the order of the appends), written under a hidden
        temporary name and renamed when complete, so a reader never sees
        half a part. Writers appending to one directory at the same time
        (threads or processes on one machine, on POSIX systems) check the
        configuration, take a sequence number and publish their part under
        an exclusive lock on the directory, one at a time. Each field is
        one column of its dtype (a field of several numbers per user, one
        fixed-size list per user), in row
        groups of 65,536 users, compressed with zstd. The file metadata
        holds the public configuration, the reports format version, the
        library version, each field's dtype and per-user shape, the
        SHA-256 of the content (:meth:`content_hash`) and the SHA-256 of
        every row group, and the SHA-256 of that metadata;
        :func:`~sklearn_ldp.io.read_reports` checks all of them.

        Needs pyarrow (``pip install 'sklearn_ldp[parquet]'``), imported
        when this method is called: the rest of the client side does not.

        Parameters
        ----------
        path : str or path-like
            The dataset directory.

        Returns
        -------
        part : str
            The path of the part written.

        Raises
        ------
        ValueError
            If the dataset's parts hold reports of another configuration
            (naming the differing keys) or other fields, or ``path`` is a
            file.
        TypeError
            For a field whose dtype Parquet cannot hold exactly (complex,
            strings, objects; bool, integer and float16/32/64 are kept).
        ImportError
            Without pyarrow.

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> from sklearn_ldp import read_reports
        >>> from sklearn_ldp.randomizers import Reports
        >>> r = Reports({"x": np.zeros((3, 2)), "k": np.arange(3)}, {"name": "demo"})
        >>> directory = os.path.join(tempfile.mkdtemp(), "reports")
        >>> part = r.to_parquet(directory)
        >>> part = r.to_parquet(directory)  # a second batch: a second part
        >>> sorted(os.listdir(directory))  # doctest: +ELLIPSIS
        ['part-00000000-....parquet', 'part-00000001-....parquet']
        >>> stream = read_reports(directory)
        >>> len(stream), stream.config
        (6, {'name': 'demo'})
        """
        from ._reports_parquet import write_part

        return write_part(self, path)

    @classmethod
    def read_header(cls, path):
        """The checked header of a reports file, without reading its fields.

        The header holds ``format_version``, ``library_version``,
        ``n_users``, ``fields``, ``config`` and ``content_sha256``; its own
        SHA-256, the format and the library major version are checked (the
        content is checked by :meth:`load`). A server reads it first to
        refuse a duplicate or an oversized file cheaply.

        Raises
        ------
        ValueError
            As :meth:`load`.
        """
        with _open_reports_file(path) as data:
            return _guarded(path, _read_header, path, data)

    @classmethod
    def load(cls, path, *, max_users=None):
        """Read reports written by :meth:`save`, refusing any file that is not intact.

        Parameters
        ----------
        path : str or path-like
        max_users : int or None, default=None
            Refuse a file that declares more users than this before reading
            its fields (a server's limit from the population it announced).

        Raises
        ------
        ValueError
            With a one-line reason, naming ``path``, for an empty, truncated
            or corrupted file, a file that is not a sklearn_ldp reports file,
            one of another format version or library major version, one
            whose header or content does not match its SHA-256, or one with
            more than ``max_users`` users.
        """
        with _open_reports_file(path) as data:
            header = _guarded(path, _read_header, path, data)
            if max_users is not None and header["n_users"] > max_users:
                raise ValueError(
                    f"{path}: declares {header['n_users']} users, more than the "
                    f"{max_users} allowed."
                )
            fields = _guarded(
                path,
                lambda: {
                    name: data[f"field_{i}"] for i, name in enumerate(header["fields"])
                },
            )
        try:
            reports = cls(fields, header["config"])
        except ValueError as error:
            raise ValueError(f"{path}: corrupted reports file ({error})") from None
        if len(reports) != header["n_users"]:
            raise ValueError(
                f"{path}: holds {len(reports)} users, its header declares "
                f"{header['n_users']}."
            )
        if reports.content_hash() != header["content_sha256"]:
            raise ValueError(
                f"{path}: the reports do not match the SHA-256 in the header: the "
                "file was corrupted or altered after it was written."
            )
        return reports

    @classmethod
    def concatenate(cls, reports):
        """Concatenate reports collected in several batches.

        All batches must come from the same randomizer configuration.
        """
        reports = list(reports)
        if not reports:
            raise ValueError("Nothing to concatenate.")
        first = reports[0]
        for other in reports[1:]:
            if not isinstance(other, Reports):
                raise TypeError(f"Expected Reports, got {type(other).__name__}.")
            if config_fingerprint(other.config) != config_fingerprint(first.config):
                raise ValueError(
                    "Cannot concatenate reports made with different randomizer "
                    "configurations: "
                    + describe_config_mismatch(first.config, other.config)
                )
            if list(other.fields) != list(first.fields):
                raise ValueError("Report batches have different fields.")
        fields = {
            name: np.concatenate([r.fields[name] for r in reports], axis=0)
            for name in first.fields
        }
        return cls(fields, first.config)


def _open_reports_file(path):
    """The open ``.npz`` archive at ``path``; a one-line ValueError if it is not one."""
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file.")
    if os.path.getsize(path) == 0:
        raise ValueError(f"{path}: empty file (0 bytes), not a reports file.")
    with open(path, "rb") as handle:
        if handle.read(4) != b"PK\x03\x04":
            raise ValueError(
                f"{path} is not a sklearn_ldp reports file (not an .npz archive)."
            )
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(
            f"{path}: truncated or corrupted reports file ({_first_line(error)})."
        ) from None
    if "header" not in data:
        data.close()
        raise ValueError(f"{path} is not a sklearn_ldp reports file.")
    return data


def _guarded(path, read, *args):
    """``read(*args)``, with any failure of a damaged archive as one line naming ``path``."""
    try:
        return read(*args)
    except ValueError as error:
        if str(error).startswith(str(path)):
            raise
        raise ValueError(
            f"{path}: corrupted reports file ({_first_line(error)})."
        ) from None
    except (OSError, EOFError, KeyError, TypeError, zipfile.BadZipFile) as error:
        raise ValueError(
            f"{path}: truncated or corrupted reports file ({_first_line(error)})."
        ) from None


def _first_line(error):
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


def _read_header(path, data):
    """The checked JSON header of an open reports file (format, library, SHA-256)."""
    text = str(data["header"])
    if len(text) > MAX_HEADER_BYTES:
        raise ValueError(f"{path}: header larger than {MAX_HEADER_BYTES} bytes.")
    try:
        header = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(
            f"{path}: corrupted reports file (header is not JSON)."
        ) from None
    if not isinstance(header, dict):
        raise ValueError(f"{path} is not a sklearn_ldp reports file.")
    check_format_version(path, header)
    if "header_sha256" not in data:
        raise ValueError(
            f"{path}: no SHA-256 of its header (written before reports files "
            "carried one); collect the reports again with the current client."
        )
    if hashlib.sha256(text.encode()).hexdigest() != str(data["header_sha256"]):
        raise ValueError(
            f"{path}: the header does not match its SHA-256: the file was "
            "corrupted or altered after it was written."
        )
    check_library_version(path, header)
    n_users, fields = header.get("n_users"), header.get("fields")
    if not (
        isinstance(n_users, int)
        and n_users >= 0
        and isinstance(fields, list)
        and isinstance(header.get("config"), dict)
        and isinstance(header.get("content_sha256"), str)
    ):
        raise ValueError(f"{path}: corrupted reports file (incomplete header).")
    return header


def check_format_version(path, header):
    """Refuse a reports file (``.npz`` or Parquet part) of another format version."""
    version = header.get("format_version")
    if isinstance(version, int) and version < REPORTS_FORMAT_VERSION:
        raise ValueError(
            f"{path} was written by an older sklearn_ldp (reports format "
            f"version {version}); this version reads version "
            f"{REPORTS_FORMAT_VERSION} only, whose configuration names "
            "changed. The server cannot check those reports against its "
            "configuration: collect them again with the current client."
        )
    if version != REPORTS_FORMAT_VERSION:
        raise ValueError(
            f"{path} has reports format version {version!r}; this version "
            f"of sklearn_ldp reads version {REPORTS_FORMAT_VERSION}."
        )


def check_library_version(path, header):
    """Refuse a reports file written by another major version of sklearn_ldp."""
    written_by = header.get("library_version")
    if header.get("library") != "sklearn_ldp" or _major(written_by) != _major(
        library_version()
    ):
        raise ValueError(
            f"{path} was written by sklearn_ldp {written_by!r}; this server runs "
            f"{library_version()} and reads files of major version "
            f"{_major(library_version())} only."
        )


def config_fingerprint(config):
    """A canonical string for a configuration (to compare two of them)."""
    return json.dumps(config, sort_keys=True, default=_json_default)


def describe_config_mismatch(expected, got):
    """Name the keys on which two configurations differ."""
    keys = sorted(set(expected) | set(got))
    diffs = [
        f"{key}: {expected.get(key, '<missing>')!r} != {got.get(key, '<missing>')!r}"
        for key in keys
        if config_fingerprint({key: expected.get(key)})
        != config_fingerprint({key: got.get(key)})
    ]
    return "; ".join(diffs) if diffs else "(no difference)"


def _json_default(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
