"""
Deployment: the published configuration
=======================================

The published configuration shared by client.py and server.py, and the
simulated population both use.

This module runs on the users' devices too, so it imports the client side
only: ``sklearn_ldp.randomizers``, never an estimator module.
"""

import importlib.metadata
import inspect
import json

import numpy as np

import sklearn_ldp.randomizers as randomizers
from sklearn_ldp.randomizers import (
    LocalRandomizer,
    config_fingerprint,
    describe_config_mismatch,
    feature_map_from_config,
)

CONFIG_FORMAT_VERSION = 1

#: The simulated population's true coefficients (the rest are 0).
TRUE_COEF = (2.0, -2.0, 1.5)


def simulated_users(n, n_features, seed):
    """Synthetic records within the public bounds (``||x|| <= 1``, ``|y| <= 1``)."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    w = np.zeros(n_features)
    w[: len(TRUE_COEF)] = TRUE_COEF
    y = np.clip(X @ w + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def library_version():
    """The installed sklearn_ldp version (read without importing the estimators)."""
    return importlib.metadata.version("sklearn_ldp")


def major(version):
    """The major version of a version string (files and configurations of another
    major version are refused)."""
    return str(version).split(".", 1)[0]


def read_config(path):
    """The published configuration, refused (one line) if unreadable or foreign."""
    try:
        with open(path) as handle:
            published = json.load(handle)
    except (OSError, ValueError) as error:
        raise SystemExit(f"Cannot read the configuration {path}: {error}") from None
    if not isinstance(published, dict):
        raise SystemExit(f"{path} is not a published configuration.")
    if published.get("format_version") != CONFIG_FORMAT_VERSION:
        raise SystemExit(
            f"Configuration format {published.get('format_version')!r} is not "
            f"supported (this program reads version {CONFIG_FORMAT_VERSION})."
        )
    return published


def rebuild_randomizer(config):
    """The randomizer a published ``randomizer_config`` names, from its public keys.

    The class is looked up in ``sklearn_ldp.randomizers`` (the device needs
    nothing else) and given every constructor argument the configuration
    holds; a public feature map travels as its own configuration and is
    rebuilt from it. What the configuration derives (noise scales, the
    lattice) is recomputed here, so a tampered value shows as a difference.
    """
    name = config.get("randomizer")
    cls = getattr(randomizers, name, None) if isinstance(name, str) else None
    if not (inspect.isclass(cls) and issubclass(cls, LocalRandomizer)):
        raise SystemExit(f"Unknown randomizer {name!r}: this client cannot build it.")
    parameters = inspect.signature(cls).parameters
    arguments = {key: config[key] for key in parameters if key in config}
    if isinstance(arguments.get("feature_map"), dict):
        arguments["feature_map"] = feature_map_from_config(arguments["feature_map"])
    return cls(**arguments)


def checked_randomizer(published):
    """Rebuild the randomizer and refuse it if it is not the published one.

    The published ``randomizer_config`` (epsilon, delta, bounds, public seeds,
    projection, noise scales, lattice) is what users were promised; a client
    whose own build of the randomizer differs, for example because it runs
    another version of the library, must not send anything.
    """
    expected = published["randomizer_config"]
    randomizer = rebuild_randomizer(expected)
    got = randomizer.get_config()
    if config_fingerprint(got) != config_fingerprint(expected):
        raise SystemExit(
            "Refusing to randomize: this client's randomizer differs from the "
            "published configuration: " + describe_config_mismatch(expected, got)
        )
    if published.get("sklearn_ldp_version") != library_version():
        raise SystemExit(
            f"Refusing to randomize: published for sklearn_ldp "
            f"{published.get('sklearn_ldp_version')}, this client runs "
            f"{library_version()}."
        )
    return randomizer
