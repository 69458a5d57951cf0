"""
Deployment: the client program
==============================

The client of a local-DP deployment: randomize one batch of users' records.

::

    python client.py --config config.json --data users.npz --out batch_0.npz

Reads the published configuration, rebuilds the randomizer and refuses to run
if it differs from the published one; reads this batch's records (``X`` and
``y`` arrays in an ``.npz`` file; ``--simulate N`` makes N synthetic users
instead) and writes only the randomized reports. On a real device the batch
is one user.

The device runs the client side only: this program and ``_common.py``
import ``sklearn_ldp.randomizers`` and no estimator module (the randomizer is
rebuilt from the published ``randomizer_config``, not from an estimator).

The noise is drawn from a generator seeded with fresh OS entropy. numpy's
Mersenne Twister is not a cryptographic generator and floating-point noise
has known side channels (Mironov, CCS 2012); a production client should draw
its noise from a CSPRNG with a hardened sampler.
"""

import argparse
import sys

import numpy as np
from _common import checked_randomizer, read_config


def simulated_users(n, n_features, seed):
    """Synthetic records within the public bounds (||x|| <= 1, |y| <= 1)."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, n_features)) / np.sqrt(n_features)
    w = np.zeros(n_features)
    w[:3] = [2.0, -2.0, 1.5]
    y = np.clip(X @ w + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[3])
    parser.add_argument("--config", default="config.json")
    parser.add_argument("--data", help="npz file with arrays X and y")
    parser.add_argument("--simulate", type=int, help="simulate this many users")
    parser.add_argument("--seed", type=int, default=0, help="seed of --simulate data")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    published = read_config(args.config)
    randomizer = checked_randomizer(published)
    if args.data:
        with np.load(args.data, allow_pickle=False) as data:
            X, y = data["X"], data["y"]
    elif args.simulate:
        X, y = simulated_users(args.simulate, published["n_features"], args.seed)
    else:
        parser.error("give --data or --simulate")
    noise = np.random.RandomState(np.random.SeedSequence().generate_state(624))
    reports = randomizer.randomize(X, y, random_state=noise)
    reports.save(args.out)
    print(f"wrote {len(reports)} reports to {args.out} ({randomizer.guarantee})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
