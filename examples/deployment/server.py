"""
Deployment: the server program
==============================

The server of a local-DP deployment: publish a configuration, then fit on reports.

Two commands::

    python server.py publish --out config.json
    python server.py fit --config config.json reports/

``publish`` writes the public configuration users randomize with: the
estimator, its parameters (epsilon, delta, public bounds, public seeds), the
number of features, the population size it is made for and the randomizer's
full configuration (``make_randomizer(n_features, n_users=...)``), versioned.

``fit`` reads the Parquet dataset directories (and part files) it is given
and trusts no part file. Each is refused, with a one-line reason, and the
others are used, when it is empty, truncated, corrupted (its metadata or a
row group does not match its SHA-256), not a reports file, of another format
or library major version, made with another configuration, a duplicate of
an earlier part (same content hash), larger than the declared population's
reports can be, or holds more users than the declared population has left.
The checks read each part once, one chunk at a time; then ``fit_reports``
reads the accepted parts as one report stream (``read_reports``), drops
every report no honest client could have sent and says how many. The
program exits with status 2 when nothing valid remains.

The population is simulated, so the server can also score the model on
simulated held-out users (``--holdout``), next to the non-private model
fitted on as many simulated records; a real server would use public or
consented data for that. It never sees a raw record of the users who
reported.
"""

import argparse
import glob
import json
import os
import pickle
import sys
import warnings

import numpy as np
from _common import (
    CONFIG_FORMAT_VERSION,
    library_version,
    major,
    read_config,
    simulated_users,
)

import sklearn_ldp
from sklearn_ldp import read_reports
from sklearn_ldp.randomizers import config_fingerprint, describe_config_mismatch

N_FEATURES = 5
#: The public population size the configuration is made for. At epsilon = 6
#: (delta = 1e-7) each of the 6 numbers of a report carries lattice Gaussian
#: noise of standard deviation 2.56, against a signal of 0.26 per feature:
#: the debiased statistics need about a million users (held-out R^2 0.80
#: to 0.97 over noise draws here, 0.94 without privacy; 0.06 with 6,000
#: users at d = 20).
N_USERS = 1_000_000
PARAMS = {
    "epsilon": 6.0,
    "delta": 1e-7,  # well below 1 / N_USERS
    "l1_radius": 5.5,  # public bound on ||w||_1 (the true one is 5.5)
    "n_components": "auto",  # m = d at this size: no projection
    "n_users": N_USERS,
    "data_norm": 1.0,
    "y_bound": 1.0,
    # The analytic Gaussian release, whose noise and held-out R^2 are quoted
    # above and in docs/deployment.rst (the library's default, 'auto', is
    # the PrivUnitG pair report at this epsilon: docs/sparse.rst).
    "mechanism": "gaussian",
    "random_state": 2026,  # fixes the public projection seed for every batch
}
#: Bytes a part file may hold beyond its users' numbers (Parquet footer, metadata).
FILE_OVERHEAD = 1 << 16
HOLDOUT_SEED = 10**6  # simulated held-out users (apart from the clients' seeds)


def build_estimator(published):
    """The estimator named in the published configuration, with its parameters."""
    if published.get("estimator") not in sklearn_ldp.__all__:
        raise SystemExit(f"Unknown estimator {published.get('estimator')!r}.")
    return getattr(sklearn_ldp, published["estimator"])(**published["params"])


def published_randomizer(published, estimator):
    randomizer = estimator.make_randomizer(
        published["n_features"], n_users=published["n_users"]
    )
    got, expected = randomizer.get_config(), published["randomizer_config"]
    if config_fingerprint(got) != config_fingerprint(expected):
        raise SystemExit(
            "The configuration file does not match its estimator: "
            + describe_config_mismatch(expected, got)
        )
    return randomizer


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


def part_files(paths):
    """The part files to read: each directory's ``*.parquet`` files (in write order)."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            names = sorted(glob.glob(os.path.join(path, "*.parquet")))
            files += [
                name for name in names if not os.path.basename(name).startswith("_")
            ]
        else:
            files.append(path)
    return files


def collect(paths, randomizer, n_users):
    """The valid part files among ``paths``; one line on stderr per refusal.

    Before a part's reports are read: its size must fit the reports of the
    whole declared population (``n_users``), its metadata must be intact,
    its content hash new, the users it declares at most those of the
    population not yet reported, and its size what that many users' reports
    take. Then its reports are read, one chunk at a time, and every row group
    checked against its SHA-256.
    """
    per_user = 8 * sum(
        int(np.prod(field.shape, dtype=np.int64))
        for field in randomizer.report_support().values()
    )
    expected = randomizer.get_config()
    accepted, seen = [], {}
    remaining = int(n_users)
    for path in paths:
        try:
            stream = _checked_part(path, per_user, n_users, remaining, seen)
            if config_fingerprint(stream.config) != config_fingerprint(expected):
                raise ValueError(
                    f"{path}: made with another configuration: "
                    + describe_config_mismatch(expected, stream.config)
                )
            for _ in stream:  # every row group against its SHA-256
                pass
        except ValueError as error:
            print(f"refused: {error}", file=sys.stderr)
            continue
        seen[stream.parts[0].content_sha256] = path
        remaining -= len(stream)
        accepted.append(path)
    return accepted


def _checked_part(path, per_user, n_users, remaining, seen):
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    if size > FILE_OVERHEAD + per_user * n_users:
        raise ValueError(
            f"{path}: {size} bytes, more than the reports of all {n_users} "
            "declared users take."
        )
    stream = read_reports(path)  # reads and checks the metadata only
    content = stream.parts[0].content_sha256
    if content in seen:
        raise ValueError(f"{path}: duplicate of {seen[content]} (same content).")
    declared = len(stream)
    if declared > remaining:
        raise ValueError(
            f"{path}: declares {declared} users, but only {remaining} of the "
            f"{n_users} declared users have not reported."
        )
    if size > FILE_OVERHEAD + per_user * declared:
        raise ValueError(
            f"{path}: {size} bytes, more than the reports of its {declared} users take."
        )
    return stream


def fit(args):
    published = read_config(args.config)
    if major(published.get("sklearn_ldp_version")) != major(library_version()):
        raise SystemExit(
            f"The configuration was published with sklearn_ldp "
            f"{published.get('sklearn_ldp_version')}; this server runs "
            f"{library_version()}."
        )
    estimator = build_estimator(published)
    randomizer = published_randomizer(published, estimator)
    files = part_files(args.reports)
    accepted = collect(files, randomizer, published["n_users"])
    if not accepted:
        print("refused: no valid report file; nothing to fit.", file=sys.stderr)
        return 2
    reports = read_reports(accepted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", sklearn_ldp.InvalidReportWarning)
        try:
            estimator.fit_reports(reports)
        except ValueError as error:
            print(f"refused: {error}", file=sys.stderr)
            return 2
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    n_used = len(reports) - estimator.n_reports_rejected_
    print(
        f"fitted on {n_used} users' reports from {len(accepted)} of {len(files)} files"
    )
    print("coef_ =", np.round(estimator.coef_, 3))
    if args.holdout:
        n_features = published["n_features"]
        X_test, y_test = simulated_users(args.holdout, n_features, HOLDOUT_SEED)
        X_ref, y_ref = simulated_users(n_used, n_features, HOLDOUT_SEED + 1)
        reference = np.linalg.lstsq(
            np.hstack([X_ref, np.ones((n_used, 1))]), y_ref, rcond=None
        )[0]
        baseline = X_test @ reference[:-1] + reference[-1]
        print(
            f"held-out R^2 on {args.holdout} simulated users: private "
            f"{estimator.score(X_test, y_test):.3f}, non-private "
            f"{_r2(y_test, baseline):.3f} (least squares on {n_used} raw records)"
        )
    if args.model:
        with open(args.model, "wb") as handle:
            pickle.dump(estimator, handle)
    return 0


def _r2(y, prediction):
    return 1.0 - np.sum((y - prediction) ** 2) / np.sum((y - y.mean()) ** 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[3])
    commands = parser.add_subparsers(dest="command", required=True)
    p_publish = commands.add_parser("publish")
    p_publish.add_argument("--out", default="config.json")
    p_fit = commands.add_parser("fit")
    p_fit.add_argument("--config", default="config.json")
    p_fit.add_argument("--model", default=None, help="pickle the fitted model here")
    p_fit.add_argument(
        "--holdout",
        type=int,
        default=20_000,
        help="score on this many simulated held-out users (0: do not)",
    )
    p_fit.add_argument(
        "reports", nargs="+", help="Parquet dataset directories or part files"
    )
    args = parser.parse_args(argv)
    if args.command == "publish":
        publish(args)
        return 0
    return fit(args)


if __name__ == "__main__":
    sys.exit(main())
