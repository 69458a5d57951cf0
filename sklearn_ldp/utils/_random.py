"""Random generators: the users' noise, the server's randomness, public seeds.

A simulation often draws its data from ``np.random.RandomState(seed)`` and
then fits an estimator with ``random_state=seed``. If the noise generator
were ``RandomState(seed)`` too, user ``i``'s noise would replay the very
numbers that generated its record: noise and data would be correlated, and
the simulated utility (and any privacy audit run that way) would be wrong.
So an integer ``random_state`` seeds each use through
``SeedSequence([seed, tag])``, with one tag per stream:

- the users' noise (:func:`check_noise_random_state`);
- the server's own randomness (:func:`check_server_random_state`: SGD
  batches, Gaussian fission, pilot samples). It must not replay the users'
  noise either, or a server that adds fresh noise to a report would add the
  very noise the report already carries;
- public seeds announced to the users (:func:`public_seed`: random
  projections, random features, partitions), one tag per kind.

Results stay reproducible for a fixed integer.
"""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

_NOISE_STREAM_TAG = 0x4C445020  # "LDP "
_SERVER_STREAM_TAG = 0x53525652  # "SRVR"


def _tagged_state(seed, tag):
    state = np.random.SeedSequence([int(seed), int(tag)])
    return np.random.RandomState(state.generate_state(624))


def _fresh_state():
    # Never numpy's global RandomState: it is shared with the rest of the
    # process, and np.random.seed(...) anywhere would make the noise known.
    return np.random.RandomState(np.random.SeedSequence().generate_state(624))


def _is_seed(random_state):
    return isinstance(random_state, Integral) and not isinstance(random_state, bool)


def check_noise_random_state(random_state):
    """Like ``sklearn.utils.check_random_state``, with integers on a separate stream.

    Parameters
    ----------
    random_state : None, int or RandomState
        ``None`` gives a generator seeded from fresh OS entropy (never
        numpy's global state); a ``RandomState`` instance is returned as is;
        an integer gives a generator seeded with
        ``SeedSequence([random_state, tag])``.

    Returns
    -------
    rng : RandomState

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.utils import check_noise_random_state
    >>> data = np.random.RandomState(0).standard_normal(3)
    >>> noise = check_noise_random_state(0).standard_normal(3)
    >>> bool(np.any(data == noise))
    False
    """
    if random_state is None:
        return _fresh_state()
    if _is_seed(random_state):
        return _tagged_state(random_state, _NOISE_STREAM_TAG)
    return check_random_state(random_state)


def check_server_random_state(random_state):
    """The server's generator: an integer seeds a stream apart from the users' noise.

    ``None`` gives a generator seeded from fresh OS entropy (never numpy's
    global state); a ``RandomState`` instance is returned as is (an instance
    shared with the simulated users simply continues after their draws).

    Examples
    --------
    >>> from sklearn_ldp.utils import check_noise_random_state, check_server_random_state
    >>> noise = check_noise_random_state(0).standard_normal(3)
    >>> server = check_server_random_state(0).standard_normal(3)
    >>> bool(np.any(noise == server))
    False
    """
    if random_state is None:
        return _fresh_state()
    if _is_seed(random_state):
        return _tagged_state(random_state, _SERVER_STREAM_TAG)
    return check_random_state(random_state)


def public_seed(random_state, tag):
    """A public seed (announced to every user) derived from an estimator's ``random_state``.

    Parameters
    ----------
    random_state : None, int or RandomState
        An integer gives ``SeedSequence([random_state, tag])`` (reproducible,
        and independent of the noise streams); ``None`` gives fresh OS
        entropy; a ``RandomState`` instance is drawn from.
    tag : int
        Names the kind of seed (projection, random features, ...), so two
        public objects made from one ``random_state`` are independent.

    Returns
    -------
    seed : int
        In ``[0, 2**31 - 1)``; it travels in the reports' configuration.

    Examples
    --------
    >>> from sklearn_ldp.utils import public_seed
    >>> public_seed(0, tag=1) == public_seed(0, tag=1) != public_seed(0, tag=2)
    True
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    if _is_seed(random_state):
        sequence = np.random.SeedSequence([int(random_state), int(tag)])
        return int(sequence.generate_state(1)[0] >> 1)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
