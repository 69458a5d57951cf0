"""The local-randomizer contract shared by every LDP estimator."""

import numpy as np
from sklearn.utils import gen_batches

from ..utils import check_finite_array, check_noise_random_state
from ._reports import Reports

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


def check_records(X, y, *, n_features, requires_y, owner):
    """Validate a population's records on the client: ``(X, y)`` as float arrays.

    ``X`` must be finite, 2-D, with ``n_features`` columns and at least one
    row; ``y`` (when given) 1-D with one entry per row. ``y`` is returned as
    given (labels may be strings); ``owner`` names the randomizer in errors.
    """
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


class LocalRandomizer:
    """Base class of the client side of a non-interactive LDP protocol.

    A local randomizer is public configuration plus :meth:`randomize`, which
    maps each user's record ``(x_i, y_i)`` to one report using only that
    record and public randomness. Subclasses set ``n_features``,
    ``epsilon`` and ``delta`` (the per-user guarantee actually provided, never
    more than what was asked) and implement :meth:`_randomize_chunk` and
    :meth:`_config`.

    Users are processed in chunks of ``chunk_size`` rows into preallocated
    output arrays, so the extra memory of a call does not grow with the
    number of users.
    """

    #: Whether ``randomize`` needs ``y``.
    requires_y = True
    chunk_size = DEFAULT_CHUNK_SIZE

    def get_config(self):
        """Public configuration, JSON-serializable; travels with the reports."""
        config = {
            "randomizer": type(self).__name__,
            "n_features": int(self.n_features),
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
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

    def randomize(self, X, y=None, random_state=None):
        """Randomize the records of a population of users.

        Parameters
        ----------
        X : array-like of shape (n_users, n_features)
            One row per user.
        y : array-like of shape (n_users,), default=None
            Targets or labels, when the protocol releases them.
        random_state : int, RandomState instance or None, default=None
            Source of the users' private randomness (and of any public
            per-user randomness the protocol draws).

        Returns
        -------
        reports : Reports
        """
        X, y = check_records(
            X,
            y,
            n_features=self.n_features,
            requires_y=self.requires_y,
            owner=type(self).__name__,
        )
        n_samples = X.shape[0]
        rng = check_noise_random_state(random_state)
        fields = None
        for batch in gen_batches(n_samples, self.chunk_size):
            chunk = self._randomize_chunk(
                X[batch], None if y is None else y[batch], rng
            )
            if fields is None:
                fields = {
                    name: np.empty((n_samples,) + value.shape[1:], dtype=value.dtype)
                    for name, value in chunk.items()
                }
            for name, value in chunk.items():
                fields[name][batch] = value
        return Reports(fields, self.get_config())

    def _randomize_chunk(self, X, y, rng):  # pragma: no cover - abstract
        raise NotImplementedError
