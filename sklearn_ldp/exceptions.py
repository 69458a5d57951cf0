"""Warnings and errors raised by sklearn_ldp."""

__all__ = ["InvalidReportWarning", "LargeDeltaWarning", "PrivacyLeakWarning"]


class PrivacyLeakWarning(UserWarning):
    """A computation used the private data in a way the privacy guarantee does not cover.

    Raised, for example, when a bound that should be a public parameter is
    computed from the data, or when a requested guarantee cannot be met and a
    weaker one is used instead. The result of such a fit is **not** covered by
    the stated (epsilon, delta) guarantee.
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
