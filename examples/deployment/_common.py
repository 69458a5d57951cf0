"""
Deployment: the published configuration
=======================================

The published configuration shared by client.py and server.py."""

import json

import sklearn_ldp
from sklearn_ldp.randomizers import config_fingerprint, describe_config_mismatch

CONFIG_FORMAT_VERSION = 1


def build_estimator(published):
    """The estimator named in the published configuration, with its parameters."""
    if published.get("format_version") != CONFIG_FORMAT_VERSION:
        raise SystemExit(
            f"Configuration format {published.get('format_version')!r} is not "
            f"supported (this program reads version {CONFIG_FORMAT_VERSION})."
        )
    if published["estimator"] not in sklearn_ldp.__all__:
        raise SystemExit(f"Unknown estimator {published['estimator']!r}.")
    return getattr(sklearn_ldp, published["estimator"])(**published["params"])


def checked_randomizer(published):
    """Rebuild the randomizer and refuse it if it is not the published one.

    The published ``randomizer_config`` (epsilon, delta, bounds, public seeds,
    projection, library version) is what users were promised; a client whose
    own build of the randomizer differs, for example because it runs another
    version of the library, must not send anything.
    """
    estimator = build_estimator(published)
    randomizer = estimator.make_randomizer(published["n_features"])
    expected = published["randomizer_config"]
    got = randomizer.get_config()
    if config_fingerprint(got) != config_fingerprint(expected):
        raise SystemExit(
            "Refusing to randomize: this client's randomizer differs from the "
            "published configuration: " + describe_config_mismatch(expected, got)
        )
    if published.get("sklearn_ldp_version") != sklearn_ldp.__version__:
        raise SystemExit(
            f"Refusing to randomize: published for sklearn_ldp "
            f"{published.get('sklearn_ldp_version')}, this client runs "
            f"{sklearn_ldp.__version__}."
        )
    return estimator, randomizer


def read_config(path):
    with open(path) as handle:
        return json.load(handle)
