"""
Deployment: the client program
==============================

The client of a local-DP deployment: randomize one batch of users' records.

::

    python client.py --config config.json --data users.npz --out reports/

Reads the published configuration, rebuilds the randomizer and refuses to run
if it differs from the published one; reads this batch's records (``X`` and
``y`` arrays in an ``.npz`` file; ``--simulate N`` makes N synthetic users
instead) and appends only the randomized reports, as one new part file, to
the Parquet dataset directory ``--out`` (``Reports.to_parquet``; it needs
pyarrow, ``pip install 'sklearn_ldp[parquet]'``). The part's metadata carries
the published configuration, the library version and SHA-256 checksums of
its content. On a real device the batch is one user, and the upload service
appends it.

The device runs the client side only: this program and ``_common.py``
import ``sklearn_ldp.randomizers`` and no estimator module (the randomizer is
rebuilt from the published ``randomizer_config``, not from an estimator).

The noise comes from the operating system's CSPRNG (``random_state=None``:
never numpy's Mersenne Twister, whose state can be recovered from its
outputs, nor its global state), and every number the reports carry lies on
the public lattice of the configuration (no floating-point low bits to leak
the record, Mironov 2012). ``--seed`` fixes only the simulated records.
"""

import argparse
import sys

import numpy as np
from _common import checked_randomizer, read_config, simulated_users


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[3])
    parser.add_argument("--config", default="config.json")
    parser.add_argument("--data", help="npz file with arrays X and y")
    parser.add_argument("--simulate", type=int, help="simulate this many users")
    parser.add_argument("--seed", type=int, default=0, help="seed of --simulate data")
    parser.add_argument(
        "--out", required=True, help="Parquet dataset directory to append to"
    )
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
    reports = randomizer.randomize(X, y, random_state=None)
    try:
        part = reports.to_parquet(args.out)
    except (ValueError, ImportError) as error:
        raise SystemExit(f"Cannot write the reports: {error}") from None
    print(f"appended {len(reports)} reports to {part} ({randomizer.guarantee})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
