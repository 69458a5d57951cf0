"""Random generators for the users' noise.

A simulation often draws its data from ``np.random.RandomState(seed)`` and
then fits an estimator with ``random_state=seed``. If the noise generator
were ``RandomState(seed)`` too, user ``i``'s noise would replay the very
numbers that generated its record: noise and data would be correlated, and
the simulated utility (and any privacy audit run that way) would be wrong.
So an integer ``random_state`` seeds the noise through
``SeedSequence([seed, tag])``, a stream unrelated to ``RandomState(seed)``;
results stay reproducible for a fixed integer.
"""

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

_NOISE_STREAM_TAG = 0x4C445020  # "LDP "


def check_noise_random_state(random_state):
    """Like ``sklearn.utils.check_random_state``, with integers on a separate stream.

    Parameters
    ----------
    random_state : None, int or RandomState
        ``None`` and ``RandomState`` instances are returned as
        ``check_random_state`` returns them; an integer gives a generator
        seeded with ``SeedSequence([random_state, tag])``.

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
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        state = np.random.SeedSequence([int(random_state), _NOISE_STREAM_TAG])
        return np.random.RandomState(state.generate_state(624))
    return check_random_state(random_state)
