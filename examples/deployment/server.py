"""
Deployment: the server program
==============================

The server of a local-DP deployment: publish a configuration, then fit on reports.

Two commands::

    python server.py publish --out config.json
    python server.py fit --config config.json reports/*.npz

``publish`` writes the public configuration users randomize with: the
estimator, its parameters (epsilon, delta, public bounds, public seeds), the
number of features, the population size it is made for and the randomizer's
full configuration (``make_randomizer(n_features, n_users=...)``), versioned.
``fit`` loads every report file, refuses any batch made with another
configuration (with a message naming the differing keys), and fits the server
with ``fit_reports``. It never sees a raw record.
"""

import argparse
import json
import pickle
import sys

import numpy as np
from _common import CONFIG_FORMAT_VERSION, library_version, read_config

import sklearn_ldp
from sklearn_ldp.randomizers import Reports

N_FEATURES = 20
N_USERS = 6000  # public population size the configuration is made for
PARAMS = {
    "epsilon": 4.0,
    "delta": 1e-6,
    "l1_radius": 5.5,
    "n_components": 20,
    "data_norm": 1.0,
    "y_bound": 1.0,
    "random_state": 2026,  # fixes the public projection seed for every batch
}


def build_estimator(published):
    """The estimator named in the published configuration, with its parameters."""
    if published["estimator"] not in sklearn_ldp.__all__:
        raise SystemExit(f"Unknown estimator {published['estimator']!r}.")
    return getattr(sklearn_ldp, published["estimator"])(**published["params"])


def publish(args):
    estimator = sklearn_ldp.SparseLDPRegressor(**PARAMS)
    # A regressor: no classes (a classifier would publish classes=[...] too).
    randomizer = estimator.make_randomizer(N_FEATURES, n_users=N_USERS)
    published = {
        "format_version": CONFIG_FORMAT_VERSION,
        "sklearn_ldp_version": library_version(),
        "estimator": "SparseLDPRegressor",
        "params": PARAMS,
        "n_features": N_FEATURES,
        "n_users": N_USERS,
        "randomizer_config": randomizer.get_config(),
    }
    with open(args.out, "w") as handle:
        json.dump(published, handle, indent=2, sort_keys=True)
    print(f"published {args.out}: {randomizer.guarantee}")


def fit(args):
    published = read_config(args.config)
    estimator = build_estimator(published)
    batches = [Reports.load(path) for path in args.reports]
    try:
        reports = Reports.concatenate(batches)
        estimator.fit_reports(reports)
    except ValueError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 2
    print(f"fitted on {len(reports)} users' reports from {len(batches)} batches")
    print("coef_[:5] =", np.round(estimator.coef_[:5], 3))
    if args.model:
        with open(args.model, "wb") as handle:
            pickle.dump(estimator, handle)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[3])
    commands = parser.add_subparsers(dest="command", required=True)
    p_publish = commands.add_parser("publish")
    p_publish.add_argument("--out", default="config.json")
    p_fit = commands.add_parser("fit")
    p_fit.add_argument("--config", default="config.json")
    p_fit.add_argument("--model", default=None, help="pickle the fitted model here")
    p_fit.add_argument("reports", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "publish":
        publish(args)
        return 0
    return fit(args)


if __name__ == "__main__":
    sys.exit(main())
