"""Warnings and errors raised by sklearn_ldp."""

__all__ = [
    "ClippingWarning",
    "InvalidReportWarning",
    "LargeDeltaWarning",
    "PrivacyLeakWarning",
]


class PrivacyLeakWarning(UserWarning):
    """A computation used the private data in a way the privacy guarantee does not cover.

    Raised, for example, when a bound that should be a public parameter is
    computed from the data, or when a requested guarantee cannot be met and a
    weaker one is used instead. The result of such a fit is **not** covered by
    the stated (epsilon, delta) guarantee.

    It fires, in this package:

    - :class:`~sklearn_ldp.PublicBoundsScaler` with ``feature_range=None``:
      the bounds are taken from the data it is fitted on;
    - the central classifiers (:class:`~sklearn_ldp.DPSVRGClassifier`,
      :class:`~sklearn_ldp.DPConstrainedClassifier`) with ``classes=None``:
      the label set, hence ``classes_`` and the shape of ``coef_``, comes
      from the private labels;
    - a Gaussian release at an epsilon beyond what the 64-bit noise sampler
      can certify at the requested delta (very large epsilon): the stated
      ``privacy_delta_`` is then the weaker delta actually provided.

    No LDP estimator takes a bound from the data: every bound
    (``data_norm``, ``y_bound``, boxes) is a public parameter, and records
    outside it are clipped on the device, with a
    :class:`ClippingWarning` when ``fit`` sees it happen.
    """


class InvalidReportWarning(UserWarning):
    """The server dropped reports that no honest randomizer could have sent.

    ``fit_reports`` checks every report against the support of the published
    randomizer (shape, finiteness, lattice, range) before aggregating; the
    warning names how many were dropped and why, and the fitted attribute
    ``n_reports_rejected_`` keeps the count. A report inside the support is
    accepted whatever its origin: its remaining influence is bounded, per
    estimator, in ``docs/privacy_model.rst``.
    """


class LargeDeltaWarning(UserWarning):
    """``delta >= 1 / n``: the guarantee holds, but it is too weak to mean much.

    An ``(epsilon, delta)`` guarantee allows the mechanism to reveal a
    record outright with probability ``delta``; over ``n`` users (or rows)
    that is ``n * delta >= 1`` records in expectation. The stated guarantee
    still holds (unlike a :class:`PrivacyLeakWarning`), but ``delta`` should
    be well below ``1 / n``.
    """


class ClippingWarning(UserWarning):
    """The declared public bounds changed a material share of the records.

    Raised by ``fit`` (where the analyst holds the records and simulates the
    users) when more than 1% of the records lie outside the declared bounds
    (``data_norm``, ``y_bound``, feature boxes) and are clipped on the
    simulated device. The guarantee still holds (clipping to a public bound
    is part of every randomizer), but the model is fitted to the clipped
    records: declare bounds that fit the data's public domain, for example
    with :class:`~sklearn_ldp.PublicBoundsScaler`. The fitted attributes
    ``clipped_fraction_`` and ``clipping_`` keep the numbers.
    """
