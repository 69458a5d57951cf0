"""The local-randomizer contract shared by every LDP estimator."""

import itertools

import numpy as np
from sklearn.utils import gen_batches

from ..utils import check_finite_array
from ._reports import Reports
from ._sampling import check_client_random_state

#: Users randomized per chunk; bounds the temporaries of a randomizer so that
#: memory stays proportional to the reports themselves.
DEFAULT_CHUNK_SIZE = 65_536

#: Numbers one chunk's temporaries may hold (about 32 MiB of float64).
CHUNK_VALUES = 2**22


def chunk_rows(values_per_user, *, budget=CHUNK_VALUES, max_rows=DEFAULT_CHUNK_SIZE):
    """Users per chunk so that one chunk holds about ``budget`` numbers.

    The one chunk-size rule of the package: a randomizer (or server pass)
    whose temporaries hold ``values_per_user`` numbers per user processes
    ``budget // values_per_user`` users at a time, at least 1 and at most
    ``max_rows``.

    Examples
    --------
    >>> from sklearn_ldp.randomizers import chunk_rows
    >>> chunk_rows(10), chunk_rows(10**5), chunk_rows(10**9)
    (65536, 41, 1)
    """
    per_user = max(int(values_per_user), 1)
    return int(min(max(budget // per_user, 1), max_rows))


def check_records(X, y, *, n_features, requires_y, owner, keep_integers=False):
    """Validate a population's records on the client: ``(X, y)`` as float arrays.

    ``X`` must be finite, 2-D, with ``n_features`` columns and at least one
    row; ``y`` (when given) 1-D with one entry per row. ``y`` is returned as
    given (labels may be strings); ``owner`` names the randomizer in errors.
    ``keep_integers``: integer and boolean records (finite by their type) are
    returned as they are, without a float copy (categories, bits).
    """
    records = np.asarray(X)
    if keep_integers and records.dtype.kind in "biu":
        if records.ndim != 2:
            raise ValueError(f"X must be a 2-dimensional array, got shape {records.shape}.")
        X = records
    else:
        X = check_finite_array(X, name="X", ndim=2)
    if X.shape[1] != n_features:
        raise ValueError(
            f"X has {X.shape[1]} features, but the randomizer was made for "
            f"{n_features}."
        )
    n_samples = X.shape[0]
    if n_samples == 0:
        raise ValueError("X has no rows (users).")
    if y is None:
        if requires_y:
            raise ValueError(f"{owner}.randomize needs y.")
        return X, None
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(
            f"y must be 1-dimensional with {n_samples} entries, got shape {y.shape}."
        )
    return X, y


#: Numbers :meth:`FieldSupport.check` examines at a time (its temporaries).
CHECK_BLOCK_VALUES = 1 << 16


class FieldSupport:
    """What an honest randomizer can put in one report field.

    Parameters
    ----------
    shape : tuple of int
        Per-user shape of the field (``()`` for one number per user).
    low, high : float or array-like
        Elementwise bounds, broadcastable to ``shape``.
    step : float or array-like
        Every value is an exact multiple of ``step`` (the lattice
        granularity, or 1 for integer fields and bits); elementwise like
        the bounds.
    values : array-like or None, default=None
        The finite set every entry lies in, when the support is not all
        lattice points of ``[low, high]`` (a sign bit is -1 or +1, never 0);
        an entry outside it is "outside the support".

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import FieldSupport
    >>> sign = FieldSupport((), -1.0, 1.0, 1.0, values=[-1.0, 1.0])
    >>> sign.check(np.array([1.0, -1.0, 0.0, 0.5])).tolist()
    [0, 0, 3, 2]
    """

    def __init__(self, shape, low, high, step, values=None):
        self.shape = tuple(int(v) for v in shape)
        self.low = np.asarray(low, dtype=np.float64)
        self.high = np.asarray(high, dtype=np.float64)
        self.step = np.asarray(step, dtype=np.float64)
        self.values = None if values is None else np.asarray(values, dtype=np.float64)

    def check(self, values):
        """Per-row reason codes: 0 valid, 1 not finite, 2 off the lattice, 3 out of range.

        Rows are checked in blocks of about ``2^16`` numbers into buffers
        reused from block to block, so the temporaries stay small (and in
        the processor's cache) whatever the number of reports. Every value
        of a block is first tested at once (on the lattice and inside the
        bounds: a NaN fails the first test, an infinity the second); only
        the rows of a block that fails get their reason (the first failing
        check).
        """
        values = np.asarray(values)
        n = values.shape[0]
        # Explicit width: reshape(0, -1) fails when every row was already rejected.
        width = int(np.prod(values.shape[1:], dtype=np.int64))
        flat = values.reshape(n, width)
        rows = min(max(CHECK_BLOCK_VALUES // max(width, 1), 1), max(n, 1))
        step, low, high = (
            np.broadcast_to(bound, self.shape).reshape(1, -1)
            for bound in (self._element_steps(), self.low, self.high)
        )
        # Powers of two (every lattice here) are divided by exactly with a
        # multiplication by their inverse, which is cheaper.
        mantissa = np.frexp(step)[0]
        inverse = 1.0 / step if np.all(mantissa == 0.5) else None
        ratio, rounded = np.empty((rows, width)), np.empty((rows, width))
        valid, scratch = np.empty((rows, width), bool), np.empty((rows, width), bool)
        codes = np.zeros(n, dtype=np.int8)
        for start in range(0, n, rows):
            block = flat[start : start + rows].astype(np.float64, copy=False)
            m = block.shape[0]
            r, q, ok, tmp = ratio[:m], rounded[:m], valid[:m], scratch[:m]
            with np.errstate(invalid="ignore"):
                if inverse is None:
                    np.divide(block, step, out=r)
                else:
                    np.multiply(block, inverse, out=r)
                np.rint(r, out=q)
                np.equal(q, r, out=ok)
                np.greater_equal(block, low, out=tmp)
                ok &= tmp
                np.less_equal(block, high, out=tmp)
                ok &= tmp
            if self.values is not None:
                ok &= np.isin(block, self.values)
            if ok.all():
                continue
            bad = np.flatnonzero(~ok.all(axis=1))
            codes[start + bad] = self._reason_codes(block[bad], step, low, high)
        return codes

    def _element_steps(self):
        """The lattice step each value is held to (elementwise)."""
        return self.step

    def _reason_codes(self, flat, step, low, high):
        """The reason codes of rows known to fail (the first failing check)."""
        finite = np.isfinite(flat).all(axis=1)
        with np.errstate(invalid="ignore"):
            ratio = flat / step
            lattice = (ratio == np.rint(ratio)).all(axis=1)
            inside = ((flat >= low) & (flat <= high)).all(axis=1)
        if self.values is not None:
            inside &= np.isin(flat, self.values).all(axis=1)
        return np.select([~finite, ~lattice, ~inside], [1, 2, 3], default=0).astype(
            np.int8
        )


#: Reason codes of :meth:`FieldSupport.check`, as words.
REJECTION_REASONS = {1: "not finite", 2: "off the lattice", 3: "outside the support"}


class LocalRandomizer:
    """Base class of the client side of a non-interactive LDP protocol.

    A local randomizer is public configuration plus :meth:`randomize`, which
    maps each user's record ``(x_i, y_i)`` to one report using only that
    record and public randomness. Subclasses set ``n_features``,
    ``epsilon`` and ``delta`` (the per-user guarantee actually provided, never
    more than what was asked) and ``granularity`` (every number a report
    carries is a multiple of it), and implement :meth:`_randomize_chunk`,
    :meth:`_config` and :meth:`report_support`.

    Users are processed in chunks of ``chunk_size`` rows into preallocated
    output arrays, so the extra memory of a call does not grow with the
    number of users. The users' noise comes from
    :func:`~sklearn_ldp.randomizers.check_client_random_state` (the operating
    system's CSPRNG when ``random_state`` is None); public per-user values
    from a separate stream of it.
    """

    #: Whether ``randomize`` needs ``y``.
    requires_y = True
    #: Whether integer records are checked without a float copy
    #: (:func:`check_records`, ``keep_integers``): category codes and bits.
    keep_integer_records = False
    chunk_size = DEFAULT_CHUNK_SIZE

    def get_config(self):
        """Public configuration, JSON-serializable; travels with the reports."""
        config = {
            "randomizer": type(self).__name__,
            "n_features": int(self.n_features),
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            "granularity": float(self.granularity),
        }
        config.update(self._config())
        return config

    def _config(self):
        return {}

    @property
    def guarantee(self):
        """The per-user guarantee in words."""
        if self.delta == 0:
            return f"each user's record is {self.epsilon:.6g}-LDP"
        return f"each user's record is ({self.epsilon:.6g}, {self.delta:.3g})-LDP"

    def report_support(self):
        """Field name -> :class:`FieldSupport`: everything an honest client can send."""
        raise NotImplementedError  # pragma: no cover - abstract

    def validate_reports(self, reports):
        """Which reports an honest randomizer with this configuration could have sent.

        Checks every field's presence and per-user shape (a wrong shape
        rejects the whole batch), then per user: finite, on the field's
        lattice, inside its support.

        Returns
        -------
        valid : ndarray of bool, shape (n_users,)
        reasons : dict of str to int
            Number of rejected reports per reason (the first failing check).
        """
        support = self.report_support()
        n = len(reports)
        missing = sorted(set(support) - set(reports.fields))
        extra = sorted(set(reports.fields) - set(support))
        if missing or extra:
            return np.zeros(n, dtype=bool), {
                f"fields {missing or ''}{' missing' if missing else ''}"
                f"{' unexpected ' + str(extra) if extra else ''}".strip(): n
            }
        codes = np.zeros(n, dtype=np.int8)
        for name, field in support.items():
            values = reports[name]
            if values.shape[1:] != field.shape:
                return np.zeros(n, dtype=bool), {
                    f"field {name!r} has per-user shape {values.shape[1:]}, "
                    f"expected {field.shape}": n
                }
            pending = codes == 0
            if pending.all():  # no copy of the field
                codes[:] = field.check(values)
            else:
                codes[pending] = field.check(values[pending])
        reasons = {
            REJECTION_REASONS[code]: int(count)
            for code, count in zip(
                *np.unique(codes[codes > 0], return_counts=True), strict=True
            )
        }
        return codes == 0, reasons

    def randomize(self, X, y=None, random_state=None):
        """Randomize the records of a population of users.

        Parameters
        ----------
        X : array-like of shape (n_users, n_features)
            One row per user.
        y : array-like of shape (n_users,), default=None
            Targets or labels, when the protocol releases them.
        random_state : None, int, RandomState, Generator or NoiseSource, default=None
            Source of the users' private randomness (and, from a separate
            stream, of any public per-user values). ``None``, what a device
            must use, draws from the operating system's CSPRNG; an integer
            is for simulations only (whoever knows it can remove the noise).

        Returns
        -------
        reports : Reports
        """
        X, y = self._check_records(X, y)
        n_samples = X.shape[0]
        chunks = self._chunks(X, y, check_client_random_state(random_state), own=False)
        batch, chunk = next(chunks)
        if batch.stop == n_samples:  # one chunk: its fields are the reports
            return Reports(_owned(chunk, X, y), self.get_config())
        fields = {
            name: np.empty((n_samples,) + value.shape[1:], dtype=value.dtype)
            for name, value in chunk.items()
        }
        for rows, values in itertools.chain([(batch, chunk)], chunks):
            for name, value in values.items():
                fields[name][rows] = value
        return Reports(fields, self.get_config())

    def randomize_chunks(self, X, y=None, random_state=None):
        """:meth:`randomize`, one chunk of ``chunk_size`` users at a time.

        Yields ``(rows, reports)``: the slice of users and their reports,
        the same reports (the same random words, in the same order) as the
        rows ``rows`` of ``randomize(X, y, random_state)``. A simulation
        that aggregates each chunk and drops it holds the reports of one
        chunk only. The records are checked once, before the first chunk.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_ldp.randomizers import GaussianRecordRandomizer
        >>> rand = GaussianRecordRandomizer(2, epsilon=1.0, delta=1e-5)
        >>> rand.chunk_size = 4
        >>> X = np.zeros((10, 2))
        >>> [rows for rows, _ in rand.randomize_chunks(X, random_state=0)]
        [slice(0, 4, None), slice(4, 8, None), slice(8, 10, None)]
        >>> whole = rand.randomize(X, random_state=0)
        >>> parts = [r["x"] for _, r in rand.randomize_chunks(X, random_state=0)]
        >>> bool(np.array_equal(np.vstack(parts), whole["x"]))
        True
        """
        X, y = self._check_records(X, y)
        return self._validated_chunks(X, y, random_state)

    def _validated_chunks(self, X, y, random_state):
        """:meth:`randomize_chunks` of records already checked.

        For an estimator's simulation, whose ``validate_data`` has already
        refused records that are not finite, not 2-D, of the wrong width or
        with a ``y`` of another length: the check of
        :func:`check_records` would be a second pass over every record.
        """
        config = self.get_config()
        chunks = self._chunks(X, y, check_client_random_state(random_state))
        return ((batch, Reports(fields, config)) for batch, fields in chunks)

    def _check_records(self, X, y):
        return check_records(
            X,
            y,
            n_features=self.n_features,
            requires_y=self.requires_y,
            owner=type(self).__name__,
            keep_integers=self.keep_integer_records,
        )

    def _chunks(self, X, y, source, own=True):
        """``(rows, fields)`` of each chunk of users, drawn as :meth:`randomize` draws.

        ``own``: the fields never share memory with ``X`` or ``y`` (a
        caller that copies them anyway passes False).
        """
        public = source.public()
        for batch in gen_batches(X.shape[0], self.chunk_size):
            chunk = self._randomize_chunk(
                X[batch], None if y is None else y[batch], source, public
            )
            yield batch, _owned(chunk, X, y) if own else chunk

    def _randomize_chunk(self, X, y, source, public):  # pragma: no cover - abstract
        raise NotImplementedError


def _owned(fields, X, y):
    """``fields`` as contiguous arrays that share no memory with the records."""
    return {
        name: value.copy()
        if _shares_memory(value, X, y)
        else np.ascontiguousarray(value)
        for name, value in fields.items()
    }


def _shares_memory(value, X, y):
    """Whether a report field may be a view of the records ``X`` or ``y``."""
    value = np.asarray(value)
    return np.may_share_memory(value, X) or (
        y is not None and np.may_share_memory(value, np.asarray(y))
    )
