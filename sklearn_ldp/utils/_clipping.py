"""How much the declared public bounds change the records: clipping diagnostics.

Every randomizer clips its input to the public bounds on the user's device
(that is what bounds the sensitivity), so records outside them are changed
silently. Where the analyst holds the records (``fit`` simulates the users),
:func:`clipping_diagnostics` counts the records each declared bound would
change and warns (:class:`~sklearn_ldp.exceptions.ClippingWarning`) when the
share is material. The quantiles it reports are statistics of the data,
shown to the analyst who holds it; nothing here reaches a model or a report.
"""

import warnings

import numpy as np
from sklearn.utils import gen_batches

from ..exceptions import ClippingWarning

#: Share of clipped records above which ``fit`` warns.
CLIPPING_WARNING_SHARE = 0.01
#: Rows per chunk of the counting pass (a few per-row temporaries and, for a
#: box, one boolean array of the chunk's entries, about 160 KB at 20 features;
#: 1024 rows spent as much time in per-call overhead as in arithmetic).
_CHUNK_ROWS = 4096


def row_norms(X, norm="l2"):
    """Exact l2 (or l-infinity) norms of the rows, even for huge entries.

    Rows are scaled by their largest absolute entry before squaring, so a
    norm of 1e200 does not overflow to inf.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.utils import row_norms
    >>> row_norms(np.array([[3e200, 4e200], [0.0, 0.0]])).tolist()
    [5e+200, 0.0]
    """
    X = np.asarray(X, dtype=np.float64)
    if norm == "linf" or not X.shape[-1]:
        return np.max(np.abs(X), axis=-1) if X.shape[-1] else np.zeros(X.shape[:-1])
    # One pass: a plain sum of squares is accurate to rounding unless a
    # square overflows (inf) or underflows (a sum below 2**-900); only those
    # rows are scaled by their largest entry first.
    squares = np.einsum("...j,...j->...", X, X)
    norms = np.sqrt(squares)
    hard = ~((squares >= 2.0**-900) & (squares < np.inf))
    if np.any(hard):
        rows = X[hard]
        largest = np.max(np.abs(rows), axis=-1)
        safe = np.where(largest > 0, largest, 1.0)
        norms[hard] = largest * np.sqrt(np.sum((rows / safe[..., None]) ** 2, axis=-1))
    return norms


def clipping_diagnostics(
    X,
    y=None,
    *,
    data_norm=None,
    norm="l2",
    y_bound=None,
    box=None,
    estimator="The estimator",
    where="on the device before randomization",
    stacklevel=3,
):
    """Share of records the declared bounds clip; warn when it is material.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The raw records (finite).
    y : ndarray of shape (n_samples,) or None
        Numeric targets, checked against ``y_bound``.
    data_norm : float or None
        Declared bound on the ``norm`` of each row of ``X``.
    norm : {'l2', 'linf'}, default='l2'
    y_bound : float or None
        Declared bound on ``|y|``.
    box : array-like of shape (2, n_features) or None
        Declared per-feature ``[low, high]`` box.
    estimator : str
        Name used in the warning.
    where : str
        Where the clipping happens, for the warning (the central estimators
        clip before training).
    stacklevel : int

    Returns
    -------
    fraction : float
        Share of records changed by at least one bound.
    details : dict
        Per bound (``'data_norm'``, ``'y_bound'``, ``'box'``): the declared
        ``bound``, the clipped ``fraction``, and ``fitting_bound``, the 99th
        percentile of the quantity it bounds (for a box, the 0.5th and
        99.5th percentiles of the feature clipped most often), computed only
        when the warning fires (else None): a statistic of the data, for the
        analyst's eyes only.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.utils import clipping_diagnostics
    >>> X = np.array([[0.1, 0.2], [3.0, 4.0]])
    >>> fraction, details = clipping_diagnostics(X, data_norm=10.0)
    >>> fraction, details["data_norm"]["fraction"]
    (0.0, 0.0)
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    details, reasons = {}, []
    if n == 0:
        return 0.0, details
    if y is not None and y_bound is not None:
        y = np.asarray(y, dtype=np.float64)
    else:
        y_bound = None
    if box is not None:
        box = np.asarray(box, dtype=np.float64)
        if box.shape == (2,):
            box = box[:, None]
        low, high = np.broadcast_to(box, (2, X.shape[1]))
    # One pass in row chunks: the counts need no copy of X. Percentiles,
    # which need every value, are computed only for a bound that warns.
    n_changed, n_norm, n_y, n_box = 0, 0, 0, 0
    box_counts = np.zeros(X.shape[1], dtype=np.int64)
    for rows in gen_batches(n, _CHUNK_ROWS):
        changed = np.zeros(rows.stop - rows.start, dtype=bool)
        if data_norm is not None:
            outside = row_norms(X[rows], norm) > data_norm
            n_norm += int(np.count_nonzero(outside))
            changed |= outside
        if y_bound is not None:
            outside = np.abs(y[rows]) > y_bound
            n_y += int(np.count_nonzero(outside))
            changed |= outside
        if box is not None:
            cells = (X[rows] < low) | (X[rows] > high)
            box_counts += np.count_nonzero(cells, axis=0)
            outside = np.any(cells, axis=1)
            n_box += int(np.count_nonzero(outside))
            changed |= outside
        n_changed += int(np.count_nonzero(changed))
    fraction = n_changed / n
    warn = fraction > CLIPPING_WARNING_SHARE
    if data_norm is not None:
        q99 = float(np.quantile(row_norms(X, norm), 0.99)) if warn and n_norm else None
        details["data_norm"] = {
            "bound": float(data_norm),
            "fraction": n_norm / n,
            "fitting_bound": q99,
        }
        percentile = "" if q99 is None else f" (99th percentile of the norms: {q99:.3g})"
        reasons.append(
            f"{n_norm / n:.1%} have ||x||_{'2' if norm == 'l2' else 'inf'} > "
            f"data_norm = {data_norm:g}{percentile}"
        )
    if y_bound is not None:
        q99 = float(np.quantile(np.abs(y), 0.99)) if warn and n_y else None
        details["y_bound"] = {
            "bound": float(y_bound),
            "fraction": n_y / n,
            "fitting_bound": q99,
        }
        percentile = "" if q99 is None else f" (99th percentile of |y|: {q99:.3g})"
        reasons.append(f"{n_y / n:.1%} have |y| > y_bound = {y_bound:g}{percentile}")
    if box is not None:
        worst = int(np.argmax(box_counts))
        quantiles = None
        if warn and n_box:
            quantiles = np.quantile(X[:, worst], [0.005, 0.995])
        details["box"] = {
            "bound": np.stack([low, high]),
            "fraction": n_box / n,
            "fitting_bound": quantiles,
        }
        percentile = (
            ""
            if quantiles is None
            else f", 0.5th-99.5th percentiles [{quantiles[0]:.3g}, {quantiles[1]:.3g}]"
        )
        reasons.append(
            f"{n_box / n:.1%} have a feature outside the declared box "
            f"(most often feature {worst}, declared [{low[worst]:g}, {high[worst]:g}]"
            f"{percentile})"
        )
    if warn:
        warnings.warn(
            f"{estimator}: {fraction:.1%} of the {n} records lie outside the declared "
            f"public bounds and are clipped {where}: "
            + "; ".join(reasons)
            + ". The model is fitted to the clipped records. Declare bounds from the "
            "public domain of the data (see sklearn_ldp.PublicBoundsScaler); the "
            "percentiles above are statistics of the private data, not public bounds.",
            ClippingWarning,
            stacklevel=stacklevel,
        )
    return float(fraction), details
