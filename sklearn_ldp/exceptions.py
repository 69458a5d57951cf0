"""Warnings and errors raised by sklearn_ldp."""

__all__ = ["PrivacyLeakWarning"]


class PrivacyLeakWarning(UserWarning):
    """A computation used the private data in a way the privacy guarantee does not cover.

    Raised, for example, when a bound that should be a public parameter is
    computed from the data, or when a requested guarantee cannot be met and a
    weaker one is used instead. The result of such a fit is **not** covered by
    the stated (epsilon, delta) guarantee.
    """
