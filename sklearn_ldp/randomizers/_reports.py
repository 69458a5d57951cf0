"""What the server receives: the reports of a population of users."""

import json

import numpy as np

#: Version of the file format written by :meth:`Reports.save`. Version 2
#: renamed the configuration values that carried paper labels (a GLM
#: ``protocol`` of ``'seed003'`` / ``'seed001'`` is now ``'power_copies'`` /
#: ``'product_copies'``; ``approximation='lemma32'`` is ``'smoothed_quantile'``)
#: and moved randomizer classes, whose names the configuration carries.
REPORTS_FORMAT_VERSION = 2


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

    def save(self, path):
        """Write the reports to a ``.npz`` file (no pickle) with their configuration.

        The file stores every field, the public configuration as JSON, and
        the file format version; :meth:`load` refuses other versions.
        """
        header = {
            "format_version": REPORTS_FORMAT_VERSION,
            "fields": list(self.fields),
            "config": self.config,
        }
        arrays = {f"field_{i}": value for i, value in enumerate(self.fields.values())}
        np.savez(
            path,
            header=np.array(json.dumps(header, sort_keys=True, default=_json_default)),
            **arrays,
        )

    @classmethod
    def load(cls, path):
        """Read reports written by :meth:`save`.

        Raises a ``ValueError`` for a file of another format version or one
        that is not a reports file.
        """
        with np.load(path, allow_pickle=False) as data:
            if "header" not in data:
                raise ValueError(f"{path} is not a sklearn_ldp reports file.")
            header = json.loads(str(data["header"]))
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
            fields = {
                name: data[f"field_{i}"] for i, name in enumerate(header["fields"])
            }
        return cls(fields, header["config"])

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
